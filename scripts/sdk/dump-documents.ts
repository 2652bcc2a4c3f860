import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildOpenApiDocument } from './openapi-documents.js';

/**
 * `npm run openapi:dump [folder]`: writes both gateways' /docs-json documents (built in process,
 * as scripts/sdk/openapi-documents.ts does) to `<folder>/purchase.json` and `<folder>/payout.json`
 * for the linters (`npm run openapi:lint`).
 */
const folder = resolve(process.argv[2] ?? 'dist/openapi');
await mkdir(folder, { recursive: true });
for (const api of ['purchase', 'payout'] as const) {
  const file = `${folder}/${api}.json`;
  await writeFile(file, `${JSON.stringify(await buildOpenApiDocument(api), null, 2)}\n`);
  console.log(`wrote ${file}`);
}
process.exit(0);
