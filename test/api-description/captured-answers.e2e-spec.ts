import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { OpenApiResponseValidator } from '../support/reliability/openapi-validator.js';
import { eventually, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import { startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { bearer, type TestVendor } from '../support/vendors.js';
import { cashPayout, uniqueReference, voucherPayout } from '../payout/payout-requests.js';
import { FAST_WEBHOOKS, startReceiver, type WebhookReceiver } from '../webhooks/webhook-receiver.js';
import { PAYOUT_WEBHOOK_EVENTS, PURCHASE_WEBHOOK_EVENTS } from '#webhooks';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Headers whose presence on an answer must be declared by the document for that status. */
const DECLARABLE = ['x-request-id', 'cache-control', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after', 'idempotent-replayed'];

/**
 * Real answers of both gateways (sandbox behind them), captured along the vendor flows, checked
 * against the served documents: the body validates against the documented schema of its status,
 * and every header the answer carries is declared there (and the declared ones are sent).
 */
function headerProblems(validator: OpenApiResponseValidator, response: Response): string[] {
  const request = (response as unknown as { req: { method: string; path: string } }).req;
  const operation = validator.operationOf(request.method, request.path);
  if (!operation) return [`${request.method} ${request.path}: not in the document`];
  const declared = Object.keys(operation.responses[String(response.status)]?.headers ?? {}).map((name) => name.toLowerCase());
  const sent = DECLARABLE.filter((name) => response.headers[name] !== undefined);
  return [
    ...sent.filter((name) => !declared.includes(name)).map((name) => `${request.method} ${operation.template} ${response.status}: sends ${name}, not declared`),
    ...declared.filter((name) => DECLARABLE.includes(name) && name !== 'idempotent-replayed' && !sent.includes(name)).map((name) => `${request.method} ${operation.template} ${response.status}: declares ${name}, not sent`),
  ];
}

/** Every event the receiver got, body and signature headers, checked against the document's `webhooks`. */
function webhookProblems(validator: OpenApiResponseValidator, receiver: WebhookReceiver): string[] {
  return receiver.receipts.flatMap((receipt) => validator.webhookProblems(JSON.parse(receipt.body), receipt.headers));
}

/** Waits until the receiver got an event of each of `types`. */
async function received(receiver: WebhookReceiver, types: string[]): Promise<void> {
  await eventually(
    async () => types.filter((type) => receiver.ofType(type).length === 0),
    (missing: string[]) => missing.length === 0,
    30_000,
    200,
  );
}

/** This file's delivery jobs die with it: later stacks (other test files) must not relay them to a closed receiver. */
async function forgetDeliveries(db: { query: (sql: string) => Promise<unknown> } | undefined): Promise<void> {
  await db?.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`).catch(() => undefined);
}

function capture(validator: () => OpenApiResponseValidator, seen: { count: number; problems: string[] }) {
  return (response: Response): Response => {
    seen.count += 1;
    try {
      validator().assertResponse(response);
    } catch (error) {
      seen.problems.push((error as Error).message);
    }
    seen.problems.push(...headerProblems(validator(), response));
    return response;
  };
}

describe('captured purchase answers match the purchase document', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let validator: OpenApiResponseValidator;
  let receiver: WebhookReceiver;
  const seen = { count: 0, problems: [] as string[] };
  const check = capture(() => validator, seen);

  beforeAll(async () => {
    stack = await startPurchaseStack({ worker: FAST_WEBHOOKS, gateway: FAST_WEBHOOKS });
    vendor = await stack.vendor({ release: true });
    validator = await OpenApiResponseValidator.fromApp(stack.gateway.http, 'purchase');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await forgetDeliveries(stack?.db);
    await receiver?.close();
    await stack?.close();
  });

  it('describes every event the gateway sends as a webhook', () => {
    expect(validator.webhookTypes().sort()).toEqual([...PURCHASE_WEBHOOK_EVENTS].sort());
  });

  it('catalogue, quote, purchase, replay, poll, fulfilment, reads and errors', async () => {
    const http = () => stack.gateway.http();
    const auth = bearer(vendor.token);
    check(await http().post('/api/v1/webhook-endpoints').set(auth).send({ url: receiver.url, events: [...PURCHASE_WEBHOOK_EVENTS] }));
    for (const path of ['/api/v1/services', '/api/v1/countries', '/api/v1/operators', '/api/v1/products?per_page=2', `/api/v1/products/${PRODUCTS.pin}`, '/api/v1/limits']) {
      check(await http().get(path).set(auth));
    }
    check(await http().post('/api/v1/lookups/mobile-number').set(auth).send({ mobile_number: '27821234567', product_id: PRODUCTS.pin }));
    const quote = check(await http().post('/api/v1/quotes').set(auth).send({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234567' } }));
    expect(quote.status).toBe(201);
    check(await http().get(`/api/v1/quotes/${quote.body.data.id}`).set(auth));
    const key = `key-${randomUUID()}`;
    const reference = `ref-${randomUUID()}`;
    const create = () => http().post('/api/v1/transactions').set(auth).set('Idempotency-Key', key).send({ quote_id: quote.body.data.id, reference });
    const validate = () => http().post('/api/v1/transactions/validate').set(auth).set('Idempotency-Key', key).send({ quote_id: quote.body.data.id, reference });
    expect(check(await validate()).body.data.outcome).toBe('create');
    const first = check(await create());
    expect(first.status).toBe(202);
    const replay = check(await create());
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(check(await validate()).body.data.outcome).toBe('replay');
    const id = first.body.data.id as string;
    await eventually(
      async () => check(await http().get(`/api/v1/transactions/${id}`).set(auth)).body.data,
      (transaction: Json) => transaction.status === 'completed' && transaction.fulfilment_available,
      30_000,
      200,
    );
    check(await http().get(`/api/v1/transactions/${id}/fulfilment`).set(auth));
    await received(receiver, ['transaction.completed']);
    seen.problems.push(...webhookProblems(validator, receiver));
    check(await http().get(`/api/v1/transactions/by-reference/${reference}`).set(auth));
    check(await http().get('/api/v1/transactions?per_page=5').set(auth));
    check(await http().get('/api/v1/reports/summary').set(auth));
    // Errors: each in its documented status and envelope.
    check(await http().post('/api/v1/quotes').set(auth).send({ product_id: 'x' }));
    check(await http().get(`/api/v1/transactions/${randomUUID()}`).set(auth));
    check(await http().post('/api/v1/transactions').set(auth).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: quote.body.data.id, reference }));
    check(await http().post('/api/v1/transactions/validate').set(auth).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: quote.body.data.id, reference }));
    check(await http().get('/api/v1/services'));
    const narrow = await vendor.issue(['limits:read']);
    check(await http().get('/api/v1/services').set(bearer(narrow.token)));

    expect(seen.count).toBeGreaterThan(20);
    expect(seen.problems).toEqual([]);
  });
});

describe('captured payout answers match the payout document', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;
  let validator: OpenApiResponseValidator;
  let receiver: WebhookReceiver;
  const seen = { count: 0, problems: [] as string[] };
  const check = capture(() => validator, seen);

  beforeAll(async () => {
    stack = await startPayoutStack({ config: FAST_WEBHOOKS });
    vendor = await stack.vendor({ fundCents: 10_000_000n, feePerPayoutCents: 500n });
    validator = await OpenApiResponseValidator.fromApp(stack.gateway.http, 'payout');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await forgetDeliveries(stack?.dataSource);
    await receiver?.close();
    await stack?.close();
  });

  it('describes every event the gateway sends as a webhook', () => {
    expect(validator.webhookTypes().sort()).toEqual([...PAYOUT_WEBHOOK_EVENTS].sort());
  });

  it('account, methods, payout, replay, delivery, batch, replay and errors', async () => {
    const http = () => stack.gateway.http();
    const auth = bearer(vendor.token);
    check(await http().post('/api/v1/webhook-endpoints').set(auth).send({ url: receiver.url, events: [...PAYOUT_WEBHOOK_EVENTS] }));
    check(await http().get('/api/v1/account').set(auth));
    check(await http().get('/api/v1/methods').set(auth));
    const request = cashPayout('55');
    const first = check(await http().post('/api/v1/payouts').set(auth).send(request));
    expect(first.body.data.status).toBe('paid');
    const replay = check(await http().post('/api/v1/payouts').set(auth).send(request));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    check(await http().get(`/api/v1/payouts/${request.reference}`).set(auth));
    check(await http().get(`/api/v1/payouts/${request.reference}/delivery`).set(auth));
    check(await http().post('/api/v1/payouts').set(auth).send({ ...request, amount: '210.00' }));
    check(await http().post('/api/v1/payouts').set(auth).send({ ...request, reference: uniqueReference(), amount: 'ten' }));
    check(await http().get(`/api/v1/payouts/${uniqueReference()}`).set(auth));
    const batch = { reference: uniqueReference('batch'), payouts: [cashPayout('55'), voucherPayout('55')] };
    expect(check(await http().post('/api/v1/batches/validate').set(auth).send(batch)).body.data.outcome).toBe('create');
    check(await http().post('/api/v1/batches').set(auth).send(batch));
    expect(check(await http().post('/api/v1/batches/validate').set(auth).send(batch)).body.data.outcome).toBe('replay');
    check(await http().post('/api/v1/batches/validate').set(auth).send({ ...batch, payouts: [{ ...batch.payouts[0], amount: '25.00' }] }));
    const batchReplay = check(await http().post('/api/v1/batches').set(auth).send(batch));
    expect(batchReplay.headers['idempotent-replayed']).toBe('true');
    check(await http().get(`/api/v1/batches/${batch.reference}`).set(auth));
    // A refusal: 422 PROVIDER_REJECTED, the payout failed with a status_reason (and a payout.failed event).
    const refused = cashPayout('01');
    check(await http().post('/api/v1/payouts').set(auth).send(refused));
    check(await http().get(`/api/v1/payouts/${refused.reference}`).set(auth));
    check(await http().post('/api/v1/payouts').set(auth).send({ ...cashPayout('55'), metadata: null }));
    await received(receiver, ['payout.paid', 'payout.failed', 'batch.completed']);
    seen.problems.push(...webhookProblems(validator, receiver));
    check(await http().get('/api/v1/account'));
    check(await http().get('/api/v1/account').set(bearer(vendor.readWriteToken)));

    expect(seen.count).toBeGreaterThan(12);
    expect(seen.problems).toEqual([]);
  });
});
