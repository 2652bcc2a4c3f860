// Project rules for the rendered overlays, on top of schema validation: what the API server
// would accept but this project does not (docs/DEPLOY.md explains each).
import { hasEmbeddedCredentials, isSecretLikeName } from './secret-names.mjs';

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);
const LONG_RUNNING_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

function describe(object) {
  return `${object.kind}/${object.metadata?.name}`;
}

function podSpecOf(object) {
  if (object.kind === 'CronJob') return object.spec?.jobTemplate?.spec?.template?.spec;
  return object.spec?.template?.spec;
}

function podLabelsOf(object) {
  return object.spec?.template?.metadata?.labels ?? {};
}

function allContainers(podSpec) {
  return [
    ...(podSpec?.initContainers ?? []).map((container) => ({ container, init: true })),
    ...(podSpec?.containers ?? []).map((container) => ({ container, init: false })),
  ];
}

function selectorMatches(selector, labels) {
  const matchLabels = selector?.matchLabels ?? {};
  const expressions = selector?.matchExpressions ?? [];
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return false;
  return (
    Object.entries(matchLabels).every(([key, value]) => labels[key] === value) &&
    expressions.every(({ key, operator, values = [] }) => {
      if (operator === 'In') return values.includes(labels[key]);
      if (operator === 'NotIn') return !values.includes(labels[key]);
      if (operator === 'Exists') return key in labels;
      if (operator === 'DoesNotExist') return !(key in labels);
      return false;
    })
  );
}

/** registry/name:tag, registry:5000/name:tag, name@sha256:... -> { name, tag, digest } */
export function parseImageReference(image) {
  const [withoutDigest, digest] = image.split('@');
  const lastSlash = withoutDigest.lastIndexOf('/');
  const lastColon = withoutDigest.lastIndexOf(':');
  const hasTag = lastColon > lastSlash;
  return {
    name: hasTag ? withoutDigest.slice(0, lastColon) : withoutDigest,
    tag: hasTag ? withoutDigest.slice(lastColon + 1) : null,
    digest: digest ?? null,
  };
}

/** Value of an env var as the container sees it, from env or from a rendered ConfigMap via envFrom. */
function settingOf(container, name, configMaps) {
  const direct = (container.env ?? []).find((entry) => entry.name === name);
  if (direct && typeof direct.value === 'string') return direct.value;
  for (const source of container.envFrom ?? []) {
    const data = source.configMapRef && configMaps.get(source.configMapRef.name);
    if (data && name in data) return data[name];
  }
  return undefined;
}

/** A Kubernetes memory quantity in MiB (Mi, Gi, M, G or bytes), or undefined when absent. */
function mebibytes(quantity) {
  if (quantity === undefined || quantity === null) return undefined;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(String(quantity));
  if (!match) return undefined;
  const factor = { Ki: 1 / 1024, Mi: 1, Gi: 1024, K: 1000 / 1048576, M: 1e6 / 1048576, G: 1e9 / 1048576 }[match[2]] ?? 1 / 1048576;
  return Number(match[1]) * factor;
}

function preStopSleepSeconds(container) {
  const command = container.lifecycle?.preStop?.exec?.command;
  if (Array.isArray(command) && command[0] === 'sleep' && /^\d+$/.test(command[1] ?? '')) return Number(command[1]);
  const sleepAction = container.lifecycle?.preStop?.sleep?.seconds;
  return typeof sleepAction === 'number' ? sleepAction : 0;
}

/** Rules for every overlay. */
export function checkEveryOverlay(objects) {
  const findings = [];
  const configMaps = new Map(objects.filter((object) => object.kind === 'ConfigMap').map((object) => [object.metadata.name, object.data ?? {}]));
  const workloads = objects.filter((object) => WORKLOAD_KINDS.has(object.kind));
  const deployments = objects.filter((object) => object.kind === 'Deployment');

  for (const [name, data] of configMaps) {
    for (const [key, value] of Object.entries(data)) {
      if (isSecretLikeName(key)) findings.push(`ConfigMap/${name}: "${key}" is named like a secret; put it in a Secret and use secretKeyRef`);
      else if (hasEmbeddedCredentials(value)) findings.push(`ConfigMap/${name}: "${key}" holds a URL with credentials`);
    }
  }

  for (const workload of workloads) {
    const where = describe(workload);
    const podSpec = podSpecOf(workload);
    if (!podSpec) {
      findings.push(`${where}: no pod template`);
      continue;
    }
    const podSecurity = podSpec.securityContext ?? {};
    if (podSpec.automountServiceAccountToken !== false) findings.push(`${where}: automountServiceAccountToken must be false (the apps never call the Kubernetes API)`);
    const tmpVolumes = new Set((podSpec.volumes ?? []).filter((volume) => volume.emptyDir).map((volume) => volume.name));

    for (const { container, init } of allContainers(podSpec)) {
      const at = `${where} container "${container.name}"`;
      const security = container.securityContext ?? {};
      if ((security.runAsNonRoot ?? podSecurity.runAsNonRoot) !== true) findings.push(`${at}: runAsNonRoot must be true`);
      if (security.runAsUser === 0 || podSecurity.runAsUser === 0) findings.push(`${at}: must not run as uid 0`);
      if (security.allowPrivilegeEscalation !== false) findings.push(`${at}: allowPrivilegeEscalation must be false`);
      if (security.readOnlyRootFilesystem !== true) findings.push(`${at}: readOnlyRootFilesystem must be true`);
      if (!(security.capabilities?.drop ?? []).includes('ALL')) findings.push(`${at}: capabilities must drop ALL`);
      if ((security.capabilities?.add ?? []).length > 0) findings.push(`${at}: must not add capabilities`);
      if ((security.seccompProfile?.type ?? podSecurity.seccompProfile?.type) !== 'RuntimeDefault') findings.push(`${at}: seccompProfile must be RuntimeDefault`);
      if (security.privileged === true) findings.push(`${at}: must not be privileged`);
      const tmpMount = (container.volumeMounts ?? []).find((mount) => mount.mountPath === '/tmp');
      if (!tmpMount || !tmpVolumes.has(tmpMount.name)) findings.push(`${at}: needs an emptyDir mounted at /tmp (the root filesystem is read-only)`);

      for (const resource of ['cpu', 'memory']) {
        if (!container.resources?.requests?.[resource]) findings.push(`${at}: resources.requests.${resource} is missing`);
        if (!container.resources?.limits?.[resource]) findings.push(`${at}: resources.limits.${resource} is missing`);
      }

      if (!init && LONG_RUNNING_KINDS.has(workload.kind)) {
        for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
          if (!container[probe]) findings.push(`${at}: ${probe} is missing`);
        }
        if (container.livenessProbe?.httpGet?.path === '/health/ready') {
          findings.push(`${at}: livenessProbe must not check dependencies (/health/ready); use /health/live`);
        }
      }

      for (const entry of container.env ?? []) {
        if (!isSecretLikeName(entry.name)) {
          if (hasEmbeddedCredentials(entry.value)) findings.push(`${at}: env ${entry.name} holds a URL with credentials`);
          continue;
        }
        if (!entry.valueFrom?.secretKeyRef) findings.push(`${at}: env ${entry.name} is named like a secret and must come from secretKeyRef`);
      }

      // V8 sizes its heap from the node's memory, not the container's limit: without a cap a busy
      // process grows towards the limit and is OOM-killed instead of collecting (docs/BENCHMARKS.md).
      // Node 24 sizes the young generation from that cap, so a small cap needs an explicit
      // semi-space or the process spends its CPU collecting; V8's heap can then reach the old
      // space plus three semi-spaces, which must leave a quarter of the limit to the rest.
      const memoryLimitMi = mebibytes(container.resources?.limits?.memory);
      if (!init && memoryLimitMi !== undefined) {
        const nodeOptions = settingOf(container, 'NODE_OPTIONS', configMaps) ?? '';
        const heapCap = /--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1];
        const semiSpace = /--max-semi-space-size=(\d+)/.exec(nodeOptions)?.[1];
        if (heapCap === undefined) findings.push(`${at}: NODE_OPTIONS must cap the heap (--max-old-space-size) below the ${memoryLimitMi}Mi memory limit`);
        else if (semiSpace === undefined) findings.push(`${at}: NODE_OPTIONS must size the young generation (--max-semi-space-size) beside --max-old-space-size`);
        else if (Number(heapCap) + 3 * Number(semiSpace) > memoryLimitMi * 0.75) {
          findings.push(`${at}: --max-old-space-size=${heapCap} and --max-semi-space-size=${semiSpace} leave too little of the ${memoryLimitMi}Mi limit for the rest of the process (V8's heap at most three quarters)`);
        }
      }

      // The pod must outlive the preStop sleep plus the app's own drain, or SIGKILL cuts the drain short.
      const graceMs = settingOf(container, 'SHUTDOWN_GRACE_MS', configMaps);
      if (!init && graceMs !== undefined) {
        const needed = Math.ceil(Number(graceMs) / 1000) + preStopSleepSeconds(container) + 1;
        const granted = podSpec.terminationGracePeriodSeconds ?? 30;
        if (!(granted >= needed)) {
          findings.push(`${at}: terminationGracePeriodSeconds ${granted} is shorter than preStop sleep + SHUTDOWN_GRACE_MS + margin (${needed})`);
        }
      }
    }
  }

  // The migration mechanism (docs/DEPLOY.md section 4): a migration Job, and every Deployment
  // that uses the database waits for the schema of its own image before it serves.
  if (!workloads.some((workload) => workload.kind === 'Job' && workload.metadata?.labels?.['app.kubernetes.io/component'] === 'migration')) {
    findings.push('no migration Job (label app.kubernetes.io/component=migration)');
  }
  for (const deployment of deployments) {
    const podSpec = podSpecOf(deployment);
    const usesDatabase = (podSpec?.containers ?? []).some((container) => (container.env ?? []).some((entry) => entry.name === 'DATABASE_URL'));
    if (!usesDatabase) continue;
    const waiter = (podSpec.initContainers ?? []).find((container) => [...(container.command ?? []), ...(container.args ?? [])].includes('docker/wait-for-schema.mjs'));
    if (!waiter) findings.push(`${describe(deployment)}: uses the database but has no wait-for-schema init container`);
    else if (waiter.image !== podSpec.containers[0].image) findings.push(`${describe(deployment)}: wait-for-schema must run the app's own image (${podSpec.containers[0].image}), not ${waiter.image}`);
  }

  const autoscaled = new Set(
    objects
      .filter((object) => object.kind === 'HorizontalPodAutoscaler')
      .map((hpa) => {
        const target = hpa.spec?.scaleTargetRef ?? {};
        if (!objects.some((object) => object.kind === target.kind && object.metadata?.name === target.name)) {
          findings.push(`${describe(hpa)}: scaleTargetRef ${target.kind}/${target.name} is not in the overlay`);
        }
        return `${target.kind}/${target.name}`;
      }),
  );
  for (const deployment of deployments) {
    if (autoscaled.has(describe(deployment)) && deployment.spec?.replicas !== undefined) {
      findings.push(`${describe(deployment)}: has both spec.replicas and a HorizontalPodAutoscaler; every apply would reset the HPA's count`);
    }
  }

  for (const pdb of objects.filter((object) => object.kind === 'PodDisruptionBudget')) {
    if (!workloads.some((workload) => selectorMatches(pdb.spec?.selector, podLabelsOf(workload)))) {
      findings.push(`${describe(pdb)}: selector matches no workload's pods`);
    }
  }

  const services = objects.filter((object) => object.kind === 'Service');
  for (const service of services) {
    const matched = workloads.filter((workload) => selectorMatches({ matchLabels: service.spec?.selector }, podLabelsOf(workload)));
    if (matched.length === 0) findings.push(`${describe(service)}: selector matches no workload's pods`);
    for (const port of service.spec?.ports ?? []) {
      if (typeof port.targetPort !== 'string') continue;
      const named = matched.some((workload) => podSpecOf(workload).containers.some((container) => (container.ports ?? []).some((p) => p.name === port.targetPort)));
      if (matched.length > 0 && !named) findings.push(`${describe(service)}: targetPort "${port.targetPort}" is not a named container port`);
    }
  }

  for (const ingress of objects.filter((object) => object.kind === 'Ingress')) {
    const tlsHosts = new Set((ingress.spec?.tls ?? []).flatMap((tls) => tls.hosts ?? []));
    for (const rule of ingress.spec?.rules ?? []) {
      if (!tlsHosts.has(rule.host)) findings.push(`${describe(ingress)}: host ${rule.host} has no TLS entry`);
      for (const path of rule.http?.paths ?? []) {
        const backend = path.backend?.service;
        const service = services.find((candidate) => candidate.metadata?.name === backend?.name);
        if (!service) {
          findings.push(`${describe(ingress)}: backend Service ${backend?.name} is not in the overlay`);
        } else if (backend.port?.name && !(service.spec?.ports ?? []).some((port) => port.name === backend.port.name)) {
          findings.push(`${describe(ingress)}: Service ${backend.name} has no port named ${backend.port.name}`);
        }
      }
    }
    if (!ingress.metadata?.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size']) {
      findings.push(`${describe(ingress)}: set nginx.ingress.kubernetes.io/proxy-body-size`);
    }
  }

  // The staff back-office is internal (docs/BACK-OFFICE.md): no Ingress may route to it, and a
  // NetworkPolicy must admit only named sources to its pods (a rule without `from` admits everyone).
  const backOffice = workloads.filter((workload) => podLabelsOf(workload)['app.kubernetes.io/component'] === 'back-office');
  const backOfficeServices = new Set(services.filter((service) => backOffice.some((workload) => selectorMatches({ matchLabels: service.spec?.selector }, podLabelsOf(workload)))).map((service) => service.metadata?.name));
  for (const ingress of objects.filter((object) => object.kind === 'Ingress')) {
    for (const path of (ingress.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? [])) {
      if (backOfficeServices.has(path.backend?.service?.name)) findings.push(`${describe(ingress)}: routes to the internal back-office Service ${path.backend.service.name}; the back-office has no public Ingress`);
    }
  }
  for (const workload of backOffice) {
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy' && (object.spec?.policyTypes ?? []).includes('Ingress') && selectorMatches(object.spec?.podSelector, podLabelsOf(workload)));
    if (!policies.some((policy) => (policy.spec?.ingress ?? []).length > 0)) findings.push(`${describe(workload)}: no NetworkPolicy names the sources admitted to the back-office`);
    for (const policy of policies) {
      (policy.spec?.ingress ?? []).forEach((rule, index) => {
        if (!Array.isArray(rule.from) || rule.from.length === 0) findings.push(`${describe(policy)}: ingress rule ${index} admits any source to the back-office`);
      });
    }
  }

  if (!objects.some((object) => object.kind === 'NetworkPolicy' && Object.keys(object.spec?.podSelector ?? {}).length === 0 && !object.spec?.ingress && !object.spec?.egress && (object.spec?.policyTypes ?? []).length === 2)) {
    findings.push('no default-deny NetworkPolicy (empty podSelector, policyTypes Ingress and Egress, no rules)');
  }

  return findings;
}

/** Extra rules for the production overlay. */
export function checkProduction(objects) {
  const findings = [];
  for (const object of objects) {
    const where = describe(object);
    if (object.kind === 'Secret' && (Object.keys(object.data ?? {}).length > 0 || Object.keys(object.stringData ?? {}).length > 0)) {
      findings.push(`${where}: a Secret with values must not be in git; reference a Secret created outside git`);
    }
    if (JSON.stringify(object).includes('provider-sandbox')) {
      findings.push(`${where}: mentions provider-sandbox, which must never be deployed to or called from production`);
    }
    const podSpec = WORKLOAD_KINDS.has(object.kind) ? podSpecOf(object) : undefined;
    for (const { container } of allContainers(podSpec)) {
      const { tag, digest } = parseImageReference(container.image ?? '');
      if (!tag && !digest) findings.push(`${where} container "${container.name}": image ${container.image} has no tag`);
      if (tag === 'latest') findings.push(`${where} container "${container.name}": image ${container.image} uses "latest"`);
      if (container.imagePullPolicy === 'Always' && tag) findings.push(`${where} container "${container.name}": imagePullPolicy Always with a pinned tag hides a mutable tag`);
      const appEnv = (container.env ?? []).find((entry) => entry.name === 'APP_ENV');
      if (appEnv && appEnv.value !== 'production') findings.push(`${where} container "${container.name}": APP_ENV must be production`);
    }
    if (object.kind === 'Job' && object.metadata?.labels?.['app.kubernetes.io/component'] === 'migration') {
      const { tag } = parseImageReference(podSpec?.containers?.[0]?.image ?? '');
      if (!tag || !object.metadata.name.endsWith(`-${tag}`)) {
        findings.push(`${where}: the migration Job must be named after its image tag (db-migrate-<tag>) so each release runs a new Job`);
      }
    }
    if (object.kind === 'NetworkPolicy') {
      (object.spec?.egress ?? []).forEach((rule, index) => {
        if (!Array.isArray(rule.to) || rule.to.length === 0) findings.push(`${where}: egress rule ${index} allows any destination; list ipBlock CIDRs`);
        if (!Array.isArray(rule.ports) || rule.ports.length === 0) findings.push(`${where}: egress rule ${index} allows any port`);
      });
    }
  }
  const config = objects.find((object) => object.kind === 'ConfigMap' && object.metadata?.name?.startsWith('gateway-config'));
  if (!config) findings.push('ConfigMap gateway-config is missing');
  else {
    if (config.data?.APP_ENV !== 'production') findings.push(`${describe(config)}: APP_ENV must be production`);
    if (!String(config.data?.CALLBACK_BASE_URL ?? '').startsWith('https://')) findings.push(`${describe(config)}: CALLBACK_BASE_URL must be HTTPS`);
  }
  for (const app of ['purchase-gateway', 'payout-gateway', 'reconciliation-worker', 'back-office']) {
    if (!objects.some((object) => object.kind === 'Deployment' && object.metadata?.name === app)) findings.push(`Deployment/${app} is missing`);
  }
  return findings;
}
