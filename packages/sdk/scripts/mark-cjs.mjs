// dist/cjs holds CommonJS while this package is "type": "module": a nested package.json tells
// Node (and TypeScript's require resolution) that the .js files below it are CommonJS.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
