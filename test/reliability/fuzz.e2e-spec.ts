import fc from 'fast-check';
import { PRODUCTS } from '../support/purchase-stack.js';
import { envInt, reportFigures } from '../support/reliability/figures.js';
import { fuzzRequests, type FuzzRequest, type KnownValues } from '../support/reliability/fuzz-requests.js';
import { OpenApiResponseValidator } from '../support/reliability/openapi-validator.js';
import { closeCheckingBooks, moneyState as readMoneyState, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { buy, call, createQuote, dataOf, type HttpAnswer } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';

/** Cases per gateway; `FUZZ_RUNS=5000 npm run test:e2e -- test/reliability/fuzz` for the long run. */
const RUNS = envInt('FUZZ_RUNS', 250);
const SEED = envInt('FUZZ_SEED', Date.now() % 2 ** 31);
/** Generous per case (a loaded 2-core machine answers a few hundred per 10 s). */
const TIMEOUT_MS = Math.max(120_000, RUNS * 60);

/**
 * Property-based requests derived from both gateways' OpenAPI documents: malformed JSON, wrong
 * types, missing and extra fields, huge and unicode strings, hostile numbers, bad headers, path
 * and query parameters. No answer may be a 5xx, every answer must match the document and the
 * envelope, and no 4xx may change a money table.
 */
describe('fuzzing both gateways from their OpenAPI documents', () => {
  let stack: ReliabilityStack;
  const vendors: TestVendor[] = [];
  const figures = { seed: SEED, runsPerGateway: RUNS, cases: 0, byStatus: {} as Record<string, number>, byKind: {} as Record<string, number> };

  beforeAll(async () => {
    // No worker: nothing changes the database except the requests themselves.
    stack = await startReliabilityStack({ worker: false, config: { PAYOUT_PROVIDER_TIMEOUT_MS: '3000' } });
  });
  afterAll(() => closeCheckingBooks(stack, () => vendors.map((vendor) => vendor.vendor.id), { andThen: () => reportFigures('fuzz', figures) }));

  async function run(style: 'purchase' | 'payout', baseUrl: string, token: string, known: KnownValues): Promise<void> {
    const validator = await OpenApiResponseValidator.fromApp(style === 'purchase' ? stack.purchase.http : stack.payout.http, style);
    const failures = new Map<string, { request: FuzzRequest; answer: Partial<HttpAnswer>; problems: string[] }>();
    const moneyState = () => readMoneyState(stack);

    await fc.assert(
      fc.asyncProperty(fuzzRequests({ document: validator.document, token, known }), async (request) => {
        figures.cases += 1;
        figures.byKind[request.label.replace(/^.*\[(.*)\]$/, '$1')] = (figures.byKind[request.label.replace(/^.*\[(.*)\]$/, '$1')] ?? 0) + 1;
        const before = await moneyState();
        let answer: HttpAnswer;
        try {
          answer = await call(baseUrl, { method: request.method, path: request.path, headers: request.headers, body: request.body, rawBody: request.rawBody, timeoutMs: 10_000 });
        } catch (error) {
          failures.set(`${request.operation} no answer`, { request, answer: {}, problems: [(error as Error).message] });
          return true;
        }
        figures.byStatus[answer.status] = (figures.byStatus[answer.status] ?? 0) + 1;
        // fetch normalises the URL (`/transactions/.` is sent as `/transactions/`): validate what was sent.
        const sent = new URL(request.path, baseUrl);
        const problems = validator.check({ method: request.method, path: sent.pathname, status: answer.status, body: answer.body });
        if (answer.status >= 500) problems.push(`server error ${answer.status}`);
        if (answer.status >= 400 && answer.status < 500) {
          const after = await moneyState();
          if (after !== before) problems.push(`a ${answer.status} changed money state: ${before} -> ${after}`);
        }
        if (problems.length > 0) {
          const signature = `${request.operation} ${answer.status} ${problems[0].slice(0, 120)}`;
          if (!failures.has(signature)) failures.set(signature, { request: { ...request, rawBody: request.rawBody?.slice(0, 300) }, answer: { status: answer.status, body: answer.body }, problems });
        }
        // Never fail inside the property: every distinct problem is collected and reported at once.
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect([...failures.values()].map((failure) => JSON.stringify(failure).slice(0, 1500))).toEqual([]);
  }

  it(`purchase gateway: ${RUNS} generated requests, no 5xx, documented answers, no state change from a 4xx`, async () => {
    const vendor = await stack.purchaseVendor();
    vendors.push(vendor);
    const quote = await createQuote(stack.purchase.url, vendor.token);
    const reference = uniqueReference('fuzz-tx');
    const transaction = dataOf(await buy(stack.purchase.url, vendor.token, quote.id, uniqueReference('fuzz-key'), reference));
    const spare = await createQuote(stack.purchase.url, vendor.token);
    await run('purchase', stack.purchase.url, vendor.token, {
      uuids: [quote.id, transaction.id, spare.id],
      references: [reference],
      integers: Object.values(PRODUCTS),
    });
  }, TIMEOUT_MS);

  it('inputs that once answered 500 now answer 4xx in the envelope, changing nothing', async () => {
    const vendor = await stack.purchaseVendor();
    vendors.push(vendor);
    const { PAYOUT_METHODS, PayoutMethodsService } = await import('#payout');
    await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    const withMetadata = (metadata: Record<string, string>) => cashPayout('55', { metadata });
    const found: Array<[string, 'purchase' | 'payout', string, string, unknown, number]> = [
      ['NUL in a payout reference path', 'payout', 'GET', '/api/v1/payouts/a%00b', undefined, 404],
      ['NUL in a delivery path', 'payout', 'GET', '/api/v1/payouts/%00/delivery', undefined, 404],
      ['NUL in an SMS resend path', 'payout', 'POST', '/api/v1/payouts/%00/resend-sms', undefined, 404],
      ['NUL in a batch reference path', 'payout', 'GET', '/api/v1/batches/%00', undefined, 404],
      ['a batch item that is an array', 'payout', 'POST', '/api/v1/batches', { reference: uniqueReference('b'), payouts: [[]] }, 422],
      ['a batch item that is an array of payouts', 'payout', 'POST', '/api/v1/batches', { reference: uniqueReference('b'), payouts: [[cashPayout('55')]] }, 422],
      ['NUL in a metadata value', 'payout', 'POST', '/api/v1/payouts', withMetadata({ note: 'a\u0000b' }), 422],
      ['NUL in a metadata key', 'payout', 'POST', '/api/v1/payouts', withMetadata({ 'k\u0000': 'v' }), 422],
      ['an unpaired surrogate in metadata', 'payout', 'POST', '/api/v1/payouts', withMetadata({ note: '\ud800' }), 422],
      ['NUL in a quote identifier', 'purchase', 'POST', '/api/v1/quotes', { product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: '2782\u00001234555' } }, 422],
      ['an unpaired surrogate in a quote identifier', 'purchase', 'POST', '/api/v1/quotes', { product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: '\udc00' } }, 422],
      ['NUL in a product search', 'purchase', 'GET', '/api/v1/products?search=a%00b', undefined, 422],
    ];
    const validators = {
      purchase: await OpenApiResponseValidator.fromApp(stack.purchase.http, 'purchase'),
      payout: await OpenApiResponseValidator.fromApp(stack.payout.http, 'payout'),
    };
    for (const [label, service, method, path, body, status] of found) {
      const before = await readMoneyState(stack);
      const answer = await call(service === 'purchase' ? stack.purchase.url : stack.payout.url, { method, path, token: vendor.token, body });
      expect([label, answer.status]).toEqual([label, status]);
      expect([label, validators[service].check({ method, path, status: answer.status, body: answer.body })]).toEqual([label, []]);
      expect([label, await readMoneyState(stack)]).toEqual([label, before]);
    }
  });

  it(`payout gateway: ${RUNS} generated requests, no 5xx, documented answers, no state change from a 4xx`, async () => {
    const vendor = await stack.payoutVendor({ feePerPayoutCents: 100n });
    vendors.push(vendor);
    const payout = cashPayout('55');
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body: payout })).status).toBe(200);
    const batchReference = uniqueReference('fuzz-batch');
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: vendor.token, body: { reference: batchReference, payouts: [cashPayout('55')] } })).status).toBe(202);
    await run('payout', stack.payout.url, vendor.token, { uuids: [], references: [payout.reference, batchReference], integers: [] });
  }, TIMEOUT_MS);
});
