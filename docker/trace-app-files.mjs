// Build-time only (docker/Dockerfile, stage app-files): copies each image's files into
// <out>/<target>/: the compiled code it runs and the production dependency files that code loads,
// traced with @vercel/nft from the production dependency tree at <root>. An image then carries
// its own deployable's files, not every app's code and every package's tests, types and tools.
//   node docker/trace-app-files.mjs <root> <out>
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { nodeFileTrace } from '@vercel/nft';

const [root, out] = process.argv.slice(2);
if (!root || !out) throw new Error('usage: node docker/trace-app-files.mjs <root> <out>');

const SERVICE_FILES = ['docker/healthcheck.mjs', 'docker/wait-for-schema.mjs'];
const app = (name) => [`dist/apps/${name}/src/main.js`, ...SERVICE_FILES];
const TARGETS = {
  'purchase-gateway': app('purchase-gateway'),
  'payout-gateway': app('payout-gateway'),
  'reconciliation-worker': app('reconciliation-worker'),
  'vendor-dashboard': app('vendor-dashboard'),
  'back-office': app('back-office'),
  'provider-sandbox': app('provider-sandbox'),
  ops: ['dist/apps/ops/src/main.js', 'dist/libs/invariants/src/check-invariants.js', 'dist/libs/database/src/migrate.js'],
  migrate: ['dist/libs/database/src/migrate.js'],
};
// Packages that read their own files by computed path (the Swagger UI's assets), which a trace of
// imports cannot see: copied whole whenever the trace reaches them.
const WHOLE_PACKAGES = ['swagger-ui-dist'];

for (const [target, entries] of Object.entries(TARGETS)) {
  const { fileList, warnings } = await nodeFileTrace(
    entries.map((entry) => path.join(root, entry)),
    { base: root, processCwd: root },
  );
  // A trace that found little more than its entries means a wrong root, not a small app.
  if (fileList.size < 100) throw new Error(`${target}: only ${fileList.size} files traced from ${root}; is the build there?`);
  const files = new Set([...fileList, 'package.json']);
  for (const name of WHOLE_PACKAGES) {
    if ([...files].some((file) => file.startsWith(`node_modules/${name}/`))) files.add(`node_modules/${name}`);
  }
  for (const file of files) {
    const source = path.join(root, file);
    if (!existsSync(source)) continue; // a path the trace considered (an optional require) that is not installed
    mkdirSync(path.dirname(path.join(out, target, file)), { recursive: true });
    cpSync(source, path.join(out, target, file), { recursive: true, dereference: true });
  }
  // Warnings are imports the trace could not resolve: optional packages that are not installed
  // (other platforms' native builds, pg-native), each loaded in a try/catch by its caller.
  const unresolved = [...new Set([...warnings].map((warning) => /"([^"]+)"/.exec(String(warning.message))?.[1] ?? String(warning.message)))];
  console.log(`${target}: ${files.size} files; not installed, optional: ${unresolved.length ? unresolved.join(' ') : 'none'}`);
}
