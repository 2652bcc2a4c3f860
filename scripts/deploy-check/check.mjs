#!/usr/bin/env node
// Deploy check: renders every kustomize overlay and validates it (Kubernetes schemas, unknown
// fields, project rules, production rules), lints every Dockerfile and .dockerignore, and
// checks docker/compose.yaml. Exit 0 when clean, 1 on any finding, 2 when it cannot run.
//
//   node scripts/deploy-check/check.mjs [--root DIR]
//
// --root points at another copy of the repository layout (k8s/, docker/, .dockerignore); the
// jest test uses it to prove that a broken copy fails. KUBECTL overrides the kubectl binary.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCompose } from './compose-check.mjs';
import { checkDockerignore, lintDockerfile } from './dockerfile-lint.mjs';
import { KubectlMissingError, renderOverlay } from './kustomize-render.mjs';
import { checkEveryOverlay, checkProduction } from './kubernetes-policy.mjs';
import { createUnknownFieldFinder, validateAgainstSchemas } from './kubernetes-schema.mjs';

const PRODUCTION_OVERLAY = 'production';

function parseArguments(argv) {
  const rootIndex = argv.indexOf('--root');
  const defaultRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
  return { root: resolve(rootIndex >= 0 ? argv[rootIndex + 1] : defaultRoot) };
}

function findDockerfiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findDockerfiles(path);
    return /^Dockerfile(\..+)?$|\.Dockerfile$/.test(entry.name) ? [path] : [];
  });
}

async function checkKubernetes(root, kubectl, report) {
  const overlaysDir = join(root, 'k8s', 'overlays');
  const overlays = existsSync(overlaysDir)
    ? readdirSync(overlaysDir).filter((name) => existsSync(join(overlaysDir, name, 'kustomization.yaml'))).sort()
    : [];
  if (overlays.length === 0) report('k8s', `no overlays with a kustomization.yaml under ${overlaysDir}`);
  if (!overlays.includes(PRODUCTION_OVERLAY)) report('k8s', `overlay "${PRODUCTION_OVERLAY}" is missing`);

  const rendered = new Map();
  for (const overlay of overlays) {
    const { objects, error } = renderOverlay(kubectl, join(overlaysDir, overlay));
    if (error) report(`k8s/${overlay}`, error);
    else rendered.set(overlay, objects);
  }
  const unknownFields = createUnknownFieldFinder([...rendered.values()].flat());
  for (const [overlay, objects] of rendered) {
    const area = `k8s/${overlay}`;
    if (objects.length === 0) report(area, 'renders no objects');
    for (const finding of await validateAgainstSchemas(objects)) report(area, finding);
    for (const finding of objects.flatMap(unknownFields)) report(area, finding);
    for (const finding of checkEveryOverlay(objects)) report(area, finding);
    if (overlay === PRODUCTION_OVERLAY) for (const finding of checkProduction(objects)) report(area, finding);
  }
  return [...rendered].map(([overlay, objects]) => `${overlay}: ${objects.length} objects`);
}

async function main() {
  const { root } = parseArguments(process.argv.slice(2));
  const kubectl = process.env.KUBECTL || 'kubectl';
  const findings = [];
  const report = (area, message) => findings.push({ area, message });

  let summary;
  try {
    summary = await checkKubernetes(root, kubectl, report);
  } catch (error) {
    if (error instanceof KubectlMissingError) {
      process.stderr.write(`deploy-check: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const dockerfiles = findDockerfiles(join(root, 'docker'));
  if (dockerfiles.length === 0) report('docker', 'no Dockerfile under docker/');
  for (const file of dockerfiles) {
    for (const finding of lintDockerfile(readFileSync(file, 'utf8'), relative(root, file))) report('docker', finding);
  }
  const dockerignore = join(root, '.dockerignore');
  if (!existsSync(dockerignore)) report('docker', '.dockerignore is missing');
  else for (const finding of checkDockerignore(readFileSync(dockerignore, 'utf8'), '.dockerignore')) report('docker', finding);

  const compose = join(root, 'docker', 'compose.yaml');
  if (!existsSync(compose)) report('compose', 'docker/compose.yaml is missing');
  else for (const finding of checkCompose(compose, readFileSync(compose, 'utf8'))) report('compose', finding.replace(`${root}/`, ''));

  for (const { area, message } of findings) process.stdout.write(`✗ [${area}] ${message}\n`);
  process.stdout.write(
    `deploy-check: ${summary.join(', ')}; ${dockerfiles.length} Dockerfile(s); compose checked. ` +
      `${findings.length === 0 ? 'No problems found.' : `${findings.length} problem(s).`}\n`,
  );
  process.exitCode = findings.length === 0 ? 0 : 1;
}

await main();
