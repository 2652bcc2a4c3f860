// docker/compose.yaml: dclint (Compose Specification JSON Schema plus its safety rules), then
// the project's own rules on the parsed file.
import { DCLinter } from 'dclint';
import { parse } from 'yaml';
import { isSecretLikeName } from './secret-names.mjs';

// dclint's ordering rules are style only; everything else it has stays on, as errors.
const DCLINT_CONFIG = {
  rules: {
    'services-alphabetical-order': 0,
    'service-keys-order': 0,
    'top-level-properties-order': 0,
    'service-dependencies-alphabetical-order': 0,
    'service-ports-alphabetical-order': 0,
    'require-quotes-in-ports': [2, { quoteType: 'double' }],
    'no-unbound-port-interfaces': 2,
    'service-image-require-explicit-tag': 2,
  },
  quiet: true,
  debug: false,
  exclude: [],
};

function durationSeconds(value) {
  const match = /^(\d+)(ms|s|m)?$/.exec(String(value ?? '').trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  return match[2] === 'ms' ? amount / 1000 : match[2] === 'm' ? amount * 60 : amount;
}

function commandText(command) {
  return Array.isArray(command) ? command.join(' ') : String(command ?? '');
}

function dependencies(service) {
  const dependsOn = service.depends_on ?? {};
  return Array.isArray(dependsOn) ? Object.fromEntries(dependsOn.map((name) => [name, {}])) : dependsOn;
}

export function checkCompose(file, content) {
  const findings = [];
  for (const result of new DCLinter(DCLINT_CONFIG).lintFiles([file], false)) {
    for (const message of result.messages) findings.push(`${file}:${message.line}: ${message.rule}: ${message.message}`);
  }

  let compose;
  try {
    compose = parse(content, { merge: true });
  } catch (error) {
    return [...findings, `${file}: not valid YAML: ${error.message}`];
  }
  const services = compose?.services ?? {};
  const devOnlySecretValues = new Set(Object.values(compose?.['x-dev-only-secrets'] ?? {}).map(String));
  const oneShot = new Set(
    Object.values(services).flatMap((service) =>
      Object.entries(dependencies(service))
        .filter(([, dependency]) => dependency.condition === 'service_completed_successfully')
        .map(([name]) => name),
    ),
  );

  for (const [name, service] of Object.entries(services)) {
    const where = `${file} service ${name}`;
    const environment = Array.isArray(service.environment)
      ? Object.fromEntries(service.environment.map((entry) => entry.split(/=(.*)/s).slice(0, 2)))
      : (service.environment ?? {});
    const isOneShot = oneShot.has(name) || (service.restart === 'no' && (service.profiles ?? []).length > 0);

    if (isOneShot) {
      if (service.restart !== 'no') findings.push(`${where}: a one-shot service needs restart: "no"`);
    } else if (!service.healthcheck || service.healthcheck.disable === true || !service.healthcheck.test) {
      findings.push(`${where}: needs a healthcheck (or must be a one-shot that others wait for with service_completed_successfully)`);
    }

    for (const [dependency, settings] of Object.entries(dependencies(service))) {
      if (!services[dependency]) findings.push(`${where}: depends on unknown service ${dependency}`);
      const expected = oneShot.has(dependency) ? 'service_completed_successfully' : 'service_healthy';
      if (settings.condition !== expected) findings.push(`${where}: depends_on ${dependency} must use condition ${expected}`);
    }

    // Every app that talks to PostgreSQL starts only after migrations completed.
    if ('DATABASE_URL' in environment && name !== 'migrate') {
      if (dependencies(service).migrate?.condition !== 'service_completed_successfully') {
        findings.push(`${where}: uses the database but does not wait for migrate (service_completed_successfully)`);
      }
    }

    for (const [key, value] of Object.entries(environment)) {
      if (isSecretLikeName(key) && !devOnlySecretValues.has(String(value))) {
        findings.push(`${where}: ${key} is a secret; take its value from the x-dev-only-secrets block so it is visibly a dev value`);
      }
    }

    if ('SHUTDOWN_GRACE_MS' in environment && !isOneShot) {
      const needed = Number(environment.SHUTDOWN_GRACE_MS) / 1000;
      const granted = durationSeconds(service.stop_grace_period ?? '10s');
      if (!(granted > needed)) findings.push(`${where}: stop_grace_period ${service.stop_grace_period ?? '10s (default)'} does not cover SHUTDOWN_GRACE_MS ${environment.SHUTDOWN_GRACE_MS}`);
    }
  }

  const redis = Object.entries(services).find(([, service]) => String(service.image ?? '').startsWith('redis:'));
  if (!redis) findings.push(`${file}: no redis service`);
  else {
    const command = commandText(redis[1].command);
    if (!/--maxmemory-policy\s+noeviction\b/.test(command)) findings.push(`${file} service ${redis[0]}: Redis must run with --maxmemory-policy noeviction (BullMQ)`);
    if (!/--appendonly\s+yes\b/.test(command)) findings.push(`${file} service ${redis[0]}: Redis must run with --appendonly yes`);
  }
  if (!services.migrate) findings.push(`${file}: no migrate service`);
  else if (services.migrate.restart !== 'no') findings.push(`${file} service migrate: must be one-shot (restart: "no")`);
  const postgres = Object.values(services).find((service) => /^postgres:15([.-]|$)/.test(String(service.image ?? '')));
  if (!postgres) findings.push(`${file}: no PostgreSQL 15 service`);
  return findings;
}
