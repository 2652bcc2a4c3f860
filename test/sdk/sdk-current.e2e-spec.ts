import { readFile } from 'node:fs/promises';
import { generateSdkSource, SDK_GENERATE_COMMAND, SDK_GENERATED_FILES } from '../../scripts/sdk/generate-sources.js';
import { buildOpenApiDocument } from '../../scripts/sdk/openapi-documents.js';
import { startPayoutGateway, startPurchaseGateway } from '../support/apps.js';

/**
 * CI fails when the committed SDK types are out of date with the gateways' documents: a changed
 * controller, schema or example must come with `npm run sdk:generate` in the same commit.
 */
describe.each([
  ['purchase', startPurchaseGateway],
  ['payout', startPayoutGateway],
] as const)('the SDK generated from the %s gateway', (api, start) => {
  it(`is current (else run: ${SDK_GENERATE_COMMAND})`, async () => {
    const committed = await readFile(SDK_GENERATED_FILES[api], 'utf8').catch(() => '');
    const regenerated = await generateSdkSource(api);
    if (committed !== regenerated) {
      throw new Error(`${SDK_GENERATED_FILES[api]} is out of date with the ${api} gateway's OpenAPI document: run \`${SDK_GENERATE_COMMAND}\` and commit the result`);
    }
  });

  it('is generated from the very document the running gateway serves at /docs-json', async () => {
    // The generator builds the document without a server (Nest preview mode); this holds it to
    // what a vendor's own generator would download.
    const gateway = await start();
    try {
      const served = await gateway.http().get('/docs-json').expect(200);
      expect(await buildOpenApiDocument(api)).toEqual(served.body);
    } finally {
      await gateway.close();
    }
  });
});
