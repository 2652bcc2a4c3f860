// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts, using only the
// package's own dev dependencies: `npm install && npm run build` works in this folder alone.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const run = (project) => execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit', cwd: root });
const staging = join(root, '.build-cjs');

rmSync(join(root, 'dist'), { recursive: true, force: true });
run('tsconfig.esm.json');

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging);
cpSync(join(root, 'src'), join(staging, 'src'), { recursive: true, filter: (path) => !path.endsWith('.spec.ts') });
writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
try {
  run('tsconfig.cjs.json');
} finally {
  rmSync(staging, { recursive: true, force: true });
}
// dist/cjs holds CommonJS while this package is "type": "module": a nested package.json tells
// Node (and TypeScript's require resolution) that the .js and .d.ts files below it are CommonJS.
writeFileSync(join(root, 'dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
