// Deploy files (k8s/, docker/, .dockerignore) through scripts/deploy-check/check.mjs: the
// repository's own files must pass, a copy with known defects must fail on each of them, and a
// machine without kubectl must fail loudly rather than skip.
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const checkScript = join(repoRoot, 'scripts', 'deploy-check', 'check.mjs');
const kubectl = process.env.KUBECTL || 'kubectl';
const CHECK_TIMEOUT_MS = 60_000;

function runCheck(args: string[] = [], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [checkScript, ...args], { cwd: repoRoot, env, encoding: 'utf8', timeout: CHECK_TIMEOUT_MS });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Replaces text that must exist, so a break that no longer applies fails the test instead of passing silently. */
function breakFile(root: string, file: string, find: string, replace: string) {
  const path = join(root, file);
  const content = readFileSync(path, 'utf8');
  if (!content.includes(find)) throw new Error(`${file} no longer contains ${JSON.stringify(find)}; update this test's defect`);
  writeFileSync(path, content.replace(find, replace));
}

describe('deploy manifests', () => {
  it('has kubectl, which renders the kustomize overlays', () => {
    const result = spawnSync(kubectl, ['version', '--client'], { encoding: 'utf8' });
    if (result.error) {
      throw new Error(`kubectl is required by the deploy check (it bundles kustomize; no cluster needed) but "${kubectl}" could not be run: ${result.error.message}. Install kubectl or set KUBECTL.`);
    }
    expect(result.status).toBe(0);
  });

  it(
    "passes the check on the repository's k8s overlays, Dockerfile, .dockerignore and compose file",
    () => {
      const result = runCheck();
      // The whole report is in the failure diff when this does not hold.
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        status: 0,
        stdout: expect.stringMatching(/dev: \d+ objects, production: \d+ objects; 1 Dockerfile\(s\); compose checked\. No problems found\./),
        stderr: '',
      });
    },
    CHECK_TIMEOUT_MS,
  );

  describe('on a copy with known defects', () => {
    let root: string;
    let report: { status: number | null; stdout: string };

    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'deploy-check-'));
      for (const entry of ['k8s', 'docker', '.dockerignore']) cpSync(join(repoRoot, entry), join(root, entry), { recursive: true });

      breakFile(root, 'k8s/overlays/production/kustomization.yaml', 'name: registry.example.com/za-payments/payout-gateway\n    newTag: 1.0.0', 'name: registry.example.com/za-payments/payout-gateway\n    newTag: latest');
      breakFile(root, 'k8s/base/payout-gateway.yaml', '          readinessProbe:', '          readinesProbe:');
      breakFile(root, 'k8s/base/reconciliation-worker.yaml', 'containerPort: 3002', 'containerPort: "3002"');
      breakFile(root, 'k8s/base/purchase-gateway.yaml', 'terminationGracePeriodSeconds: 35', 'terminationGracePeriodSeconds: 20');
      breakFile(
        root,
        'k8s/base/reconciliation-worker.yaml',
        '            - name: CALLBACK_TOKEN\n              valueFrom:\n                secretKeyRef:\n                  name: gateway-secrets\n                  key: CALLBACK_TOKEN\n',
        '            - name: CALLBACK_TOKEN\n              value: 0123abcd\n',
      );
      breakFile(root, 'k8s/base/payout-gateway.yaml', '              cpu: "1"\n              memory: 512Mi\n', '              cpu: "1"\n');
      breakFile(root, 'k8s/base/purchase-gateway.yaml', 'args: ["node", "docker/wait-for-schema.mjs"]', 'args: ["node", "-e", "0"]');
      breakFile(root, 'k8s/overlays/dev/provider-sandbox.yaml', '            - name: NODE_OPTIONS\n              value: --max-old-space-size=512 --max-semi-space-size=16\n', '');
      breakFile(root, 'k8s/base/kustomization.yaml', '- NODE_OPTIONS=--max-old-space-size=128 --max-semi-space-size=16', '- NODE_OPTIONS=--max-old-space-size=128');
      writeFileSync(join(root, 'k8s/overlays/production/leaked-secret.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaked\nstringData:\n  CALLBACK_TOKEN: abc\n');
      breakFile(root, 'k8s/overlays/production/kustomization.yaml', '  - namespace.yaml\n', '  - namespace.yaml\n  - leaked-secret.yaml\n');
      breakFile(
        root,
        'k8s/base/ingress.yaml',
        '                name: purchase-gateway\n                port:\n                  name: http\n---',
        '                name: purchase-gateway\n                port:\n                  name: http\n          - path: /staff\n            pathType: Prefix\n            backend:\n              service:\n                name: back-office\n                port:\n                  name: http\n---',
      );
      breakFile(root, 'k8s/base/network-policies.yaml', '    - from:\n        - namespaceSelector:\n            matchLabels:\n              za-payments.example.com/staff-access: "true"\n      ports:', '    - ports:');
      breakFile(root, 'docker/Dockerfile', 'FROM node:24.21.0-bookworm-slim AS base', 'FROM node:latest AS base');
      breakFile(root, 'docker/Dockerfile', 'USER 1000:1000', 'USER root');
      breakFile(root, 'docker/compose.yaml', '"--maxmemory-policy", "noeviction"', '"--maxmemory-policy", "allkeys-lru"');
      breakFile(root, 'docker/compose.yaml', '  migrate:\n    condition: service_completed_successfully\n  provider-sandbox:', '  migrate:\n    condition: service_started\n  provider-sandbox:');
      breakFile(root, 'docker/compose.yaml', '    healthcheck:\n      <<: *app-healthcheck\n      start_period: 20s\n', '');

      report = runCheck(['--root', root]);
    }, CHECK_TIMEOUT_MS);

    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('exits non-zero', () => {
      expect(report.status).toBe(1);
    });

    it.each([
      ['an image tagged latest in production', '[k8s/production] Deployment/payout-gateway container "payout-gateway": image registry.example.com/za-payments/payout-gateway:latest uses "latest"'],
      ['a misspelt field (unknown to the Kubernetes schema)', '[k8s/production] Deployment/payout-gateway: /spec/template/spec/containers/0/readinesProbe: unknown field'],
      ['a container without a readiness probe', '[k8s/dev] Deployment/payout-gateway container "payout-gateway": readinessProbe is missing'],
      ['a value of the wrong type', '[k8s/production] Deployment/reconciliation-worker: schema: /spec/template/spec/containers/0/ports/0/containerPort must be integer'],
      ['a grace period shorter than the drain', '[k8s/production] Deployment/purchase-gateway container "purchase-gateway": terminationGracePeriodSeconds 20 is shorter than'],
      ['a secret as a plain env value', '[k8s/production] Deployment/reconciliation-worker container "reconciliation-worker": env CALLBACK_TOKEN is named like a secret and must come from secretKeyRef'],
      ['a container without a memory limit', '[k8s/dev] Deployment/payout-gateway container "payout-gateway": resources.limits.memory is missing'],
      ['a Node container whose heap is not capped below its memory limit', '[k8s/dev] Deployment/provider-sandbox container "provider-sandbox": NODE_OPTIONS must cap the heap (--max-old-space-size) below the 768Mi memory limit'],
      ['a capped heap whose young generation Node 24 would size from the cap', '[k8s/production] Deployment/purchase-gateway container "purchase-gateway": NODE_OPTIONS must size the young generation (--max-semi-space-size) beside --max-old-space-size'],
      ['a Deployment that would serve before its migrations ran', '[k8s/production] Deployment/purchase-gateway: uses the database but has no wait-for-schema init container'],
      ['a Secret with values in the production overlay', '[k8s/production] Secret/leaked: a Secret with values must not be in git'],
      ['a public Ingress routing to the internal back-office', '[k8s/dev] Ingress/purchase-gateway: routes to the internal back-office Service back-office; the back-office has no public Ingress'],
      ['a back-office NetworkPolicy rule that admits any source', '[k8s/dev] NetworkPolicy/back-office-from-staff-network: ingress rule 0 admits any source to the back-office'],
      ['an unpinned base image', /\[docker\] docker\/Dockerfile:\d+: base image node:latest uses "latest"/],
      ['an image that runs as root', '[docker] docker/Dockerfile target purchase-gateway: USER must be a numeric non-root uid'],
      ['Redis that may evict BullMQ keys', '[compose] docker/compose.yaml service redis: Redis must run with --maxmemory-policy noeviction'],
      ['an app that does not wait for migrations', '[compose] docker/compose.yaml service purchase-gateway: uses the database but does not wait for migrate'],
      ['a long-running service without a healthcheck', '[compose] docker/compose.yaml service provider-sandbox: needs a healthcheck'],
    ])('reports %s', (_defect, line) => {
      if (line instanceof RegExp) expect(report.stdout).toMatch(line);
      else expect(report.stdout).toContain(`✗ ${line}`);
    });
  });

  it(
    'fails with a clear message, instead of skipping, when kubectl is missing',
    () => {
      const result = runCheck([], { ...process.env, KUBECTL: join(tmpdir(), 'no-such-dir', 'kubectl') });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('was not found on PATH. The deploy check needs kubectl');
    },
    CHECK_TIMEOUT_MS,
  );
});

describe('docker/healthcheck.mjs', () => {
  let server: Server;
  let liveStatus = 200;

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.statusCode = request.url === '/health/live' ? liveStatus : 404;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function probe(): Promise<number> {
    const { port } = server.address() as AddressInfo;
    return new Promise((resolve) => {
      execFile(process.execPath, [join(repoRoot, 'docker', 'healthcheck.mjs')], { env: { ...process.env, PORT: String(port) } }, (error) =>
        resolve(error ? Number(error.code ?? 1) : 0),
      );
    });
  }

  it('exits 0 when /health/live answers 2xx and 1 otherwise', async () => {
    liveStatus = 200;
    expect(await probe()).toBe(0);
    liveStatus = 503;
    expect(await probe()).toBe(1);
  });
});
