import { writeFile } from 'node:fs/promises';
import { generateSdkSources, SDK_GENERATED_FILES } from './generate-sources.js';

/**
 * `npm run sdk:generate`: rewrites packages/sdk/src/generated/*.ts from the gateways' OpenAPI
 * documents. test/sdk/sdk-current.e2e-spec.ts fails when the committed files differ.
 */
const sources = await generateSdkSources();
for (const [api, file] of Object.entries(SDK_GENERATED_FILES)) {
  await writeFile(file, sources[api as keyof typeof sources]);
  console.log(`wrote ${file}`);
}
process.exit(0);
