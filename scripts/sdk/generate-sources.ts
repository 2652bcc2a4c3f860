import { resolve } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument, type SdkApi } from './openapi-documents.js';

/** The committed generated sources, relative to the repository root (npm scripts and jest run there). */
export const SDK_GENERATED_FILES: Record<SdkApi, string> = {
  purchase: resolve('packages/sdk/src/generated/purchase.ts'),
  payout: resolve('packages/sdk/src/generated/payout.ts'),
};

export const SDK_GENERATE_COMMAND = 'npm run sdk:generate';

/** openapi-typescript's output for one gateway's document: types only, deterministic for a document. */
export async function generateSdkSource(api: SdkApi): Promise<string> {
  const document = await buildOpenApiDocument(api);
  // Options a vendor's own generation would use too: no extra flags that change the shape, so the
  // committed types match what `npx openapi-typescript <base_url>/docs-json` gives an integrator.
  const nodes = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  const header = `${COMMENT_HEADER}// The ${api} gateway's /docs-json. Regenerate with \`${SDK_GENERATE_COMMAND}\`; CI fails when this file is out of date.\n\n`;
  return header + astToString(nodes);
}

export async function generateSdkSources(): Promise<Record<SdkApi, string>> {
  return { purchase: await generateSdkSource('purchase'), payout: await generateSdkSource('payout') };
}
