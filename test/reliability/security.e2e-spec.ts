import { randomBytes } from 'node:crypto';
import { TokenService } from '#auth';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { CALLBACK_TOKEN, eventually, PRODUCTS } from '../support/purchase-stack.js';
import { percentile, reportFigures, seededRandom } from '../support/reliability/figures.js';
import { OpenApiResponseValidator } from '../support/reliability/openapi-validator.js';
import { closeCheckingBooks, moneyState as readMoneyState, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf, uniqueKey, type HttpAnswer } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { bankAccount, cashPayout, uniqueReference } from '../payout/payout-requests.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SQL_INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE payouts; --",
  "1'; SELECT pg_sleep(3); --",
  "' UNION SELECT token_hash FROM api_tokens --",
  "%' OR 1=1 --",
  "') OR ('a'='a",
];

/**
 * Tenant isolation (BOLA), token timing, the body limit, security headers, SQL injection in every
 * string field, and the provider callback under forged tokens.
 */
describe('security', () => {
  let stack: ReliabilityStack;
  let owner: TestVendor;
  let intruder: TestVendor;
  const figures: Record<string, unknown> = {};
  /** The owner's records, which the intruder must not reach. */
  const owned: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startReliabilityStack();
    owner = await stack.purchaseVendor({ name: 'Owner' });
    intruder = await stack.purchaseVendor({ name: 'Intruder' });
    // Both vendors use both APIs: payout methods and funds for the same vendor ids.
    for (const vendor of [owner, intruder]) {
      await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
      await stack.payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, 10_000_000n, 'security');
    }

    const quote = await createQuote(stack.purchase.url, owner.token, airtimeQuote('55', PRODUCTS.pin));
    owned.reference = uniqueKey('owner-ref');
    owned.key = uniqueKey('owner-key');
    owned.transaction = dataOf(await buy(stack.purchase.url, owner.token, quote.id, owned.key, owned.reference)).id;
    owned.quote = (await createQuote(stack.purchase.url, owner.token)).id;
    const payout = cashPayout('55');
    owned.payout = payout.reference;
    owned.payoutAmount = payout.amount;
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: owner.token, body: payout })).status).toBe(200);
    owned.batch = uniqueReference('owner-batch');
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: owner.token, body: { reference: owned.batch, payouts: [cashPayout('55')] } })).status).toBe(202);
    await eventually(
      () => call(stack.purchase.url, { path: `/api/v1/transactions/${owned.transaction}`, token: owner.token }),
      (answer) => dataOf(answer).fulfilment_available === true,
    );
    await eventually(
      () => stack.sql<{ open: number }>(`SELECT count(*)::int AS open FROM payouts WHERE vendor_id = $1 AND status = 'pending'`, [owner.vendor.id]),
      (rows) => rows[0].open === 0,
    );
    // From here on only the requests under test may write: no worker polling in the background.
    await stack.stopWorker();
  }, 60_000);

  afterAll(() => closeCheckingBooks(stack, () => [owner.vendor.id, intruder.vendor.id], { andThen: () => reportFigures('security', figures) }));

  const moneyState = () => readMoneyState(stack);

  describe('tenant isolation (BOLA): every route with an id or reference, called with another vendor’s', () => {
    const unknownUuid = '0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f';
    interface Route {
      label: string;
      service: 'purchase' | 'payout';
      method: string;
      path: (ids: Record<string, string>) => string;
      body?: (ids: Record<string, string>) => Json;
      /** 404 unless the contract names the condition: another vendor's quote is invalid input (422 on quote_id). */
      status?: number;
    }
    const routes: Route[] = [
      { label: 'quote', service: 'purchase', method: 'GET', path: (ids) => `/api/v1/quotes/${ids.quote}` },
      { label: 'quote (upper case id)', service: 'purchase', method: 'GET', path: (ids) => `/api/v1/quotes/${ids.quote.toUpperCase()}` },
      { label: 'transaction', service: 'purchase', method: 'GET', path: (ids) => `/api/v1/transactions/${ids.transaction}` },
      { label: 'transaction by reference', service: 'purchase', method: 'GET', path: (ids) => `/api/v1/transactions/by-reference/${encodeURIComponent(ids.reference)}` },
      { label: 'fulfilment (PIN)', service: 'purchase', method: 'GET', path: (ids) => `/api/v1/transactions/${ids.transaction}/fulfilment` },
      { label: 'buying the quote', service: 'purchase', method: 'POST', path: () => '/api/v1/transactions', body: (ids) => ({ quote_id: ids.quote, reference: uniqueKey('steal') }), status: 422 },
      { label: 'payout', service: 'payout', method: 'GET', path: (ids) => `/api/v1/payouts/${encodeURIComponent(ids.payout)}` },
      { label: 'payout delivery (PIN)', service: 'payout', method: 'GET', path: (ids) => `/api/v1/payouts/${encodeURIComponent(ids.payout)}/delivery` },
      { label: 'SMS resend', service: 'payout', method: 'POST', path: (ids) => `/api/v1/payouts/${encodeURIComponent(ids.payout)}/resend-sms` },
      { label: 'batch', service: 'payout', method: 'GET', path: (ids) => `/api/v1/batches/${encodeURIComponent(ids.batch)}` },
    ];
    const probes = { quote: unknownUuid, transaction: unknownUuid, reference: 'no-such-ref', payout: 'no-such-ref', batch: 'no-such-ref' };

    it.each(routes)('$label: 404 NOT_FOUND (422 for a quote to buy), the same answer as for an id that does not exist, nothing read or changed', async ({ service, method, path, body, status = 404 }) => {
      const baseUrl = service === 'purchase' ? stack.purchase.url : stack.payout.url;
      const headers = method === 'POST' && service === 'purchase' ? { 'idempotency-key': uniqueKey('steal-key') } : undefined;
      const before = await moneyState();
      const audits = await stack.sql(`SELECT (SELECT count(*) FROM purchase_fulfilment_reads)::int AS f, (SELECT count(*) FROM payout_delivery_reads)::int AS d, (SELECT count(*) FROM payout_sms_resends)::int AS s`);
      const stolen = await call(baseUrl, { method, path: path(owned), token: intruder.token, headers, body: body?.(owned) });
      const missing = await call(baseUrl, { method, path: path({ ...owned, ...probes }), token: intruder.token, headers: headers && { 'idempotency-key': uniqueKey('probe-key') }, body: body?.({ ...owned, ...probes }) });

      expect(stolen.status).toBe(status);
      // Indistinguishable from a miss: existence does not leak.
      expect(stolen.body).toEqual(missing.body);
      const text = JSON.stringify(stolen.body);
      for (const secret of [owned.transaction, owned.reference, owned.payout, owned.batch, owned.quote, owner.vendor.id]) expect(text).not.toContain(secret);
      expect(await moneyState()).toBe(before);
      expect(await stack.sql(`SELECT (SELECT count(*) FROM purchase_fulfilment_reads)::int AS f, (SELECT count(*) FROM payout_delivery_reads)::int AS d, (SELECT count(*) FROM payout_sms_resends)::int AS s`)).toEqual(audits);
      figures.bolaRoutes = ((figures.bolaRoutes as number) ?? 0) + 1;
    });

    it('lists and filters show only the caller’s own records', async () => {
      const byReference = await call(stack.purchase.url, { path: `/api/v1/transactions?reference=${encodeURIComponent(owned.reference)}`, token: intruder.token });
      expect(byReference.status).toBe(200);
      expect(dataOf(byReference)).toMatchObject({ items: [], total: 0 });
      const all = await call(stack.purchase.url, { path: '/api/v1/transactions?per_page=100', token: intruder.token });
      expect(dataOf(all).items.map((item: { id: string }) => item.id)).not.toContain(owned.transaction);
      const limits = await call(stack.purchase.url, { path: '/api/v1/limits', token: intruder.token });
      expect(dataOf(limits).used_today_minor).toBe(0);
      const account = await call(stack.payout.url, { path: '/api/v1/account', token: intruder.token });
      expect(dataOf(account).id).not.toBe(owner.vendor.id);
    });

    it('the owner’s references, keys and batch references are the intruder’s own namespace: no conflict reveals them', async () => {
      const payout = await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: intruder.token, body: cashPayout('55', { reference: owned.payout, amount: '30.00' }) });
      expect(payout.status).toBe(200);
      expect(dataOf(payout).amount).toBe('30.00');
      const batch = await call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: intruder.token, body: { reference: owned.batch, payouts: [cashPayout('55', { amount: '40.00' })] } });
      expect(batch.status).toBe(202);
      const quote = await createQuote(stack.purchase.url, intruder.token);
      const purchase = await buy(stack.purchase.url, intruder.token, quote.id, owned.key, owned.reference);
      expect(purchase.status).toBe(202);
      expect(dataOf(purchase).id).not.toBe(owned.transaction);
      // The owner's records are untouched.
      expect(dataOf(await call(stack.payout.url, { path: `/api/v1/payouts/${encodeURIComponent(owned.payout)}`, token: owner.token })).amount).toBe(owned.payoutAmount);
    });
  });

  describe('token checks do not leak timing', () => {
    it('unknown, revoked and expired tokens take the same time to refuse (medians of interleaved samples)', async () => {
      const tokens = stack.purchase.app.get(TokenService);
      const revoked = await owner.issue(['limits:read']);
      await tokens.revoke(revoked.id);
      const expired = await owner.issue(['limits:read']);
      await stack.sql(`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
      const kinds: Record<string, () => string> = {
        unknown: () => `gwt_${randomBytes(32).toString('base64url')}`,
        revoked: () => revoked.token,
        expired: () => expired.token,
        malformed: () => `gwt_${randomBytes(8).toString('base64url')}`,
      };
      const samples: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
      const random = seededRandom(42);
      const order = Array.from({ length: 160 }, () => Object.keys(kinds)).flat();
      for (let index = order.length - 1; index > 0; index--) {
        const swap = Math.floor(random() * (index + 1));
        [order[index], order[swap]] = [order[swap], order[index]];
      }
      for (const kind of order) {
        const answer = await call(stack.purchase.url, { path: '/api/v1/limits', token: kinds[kind]() });
        expect(answer.status).toBe(401);
        samples[kind].push(answer.elapsedMs);
      }
      // Warm-up noise out: the first tenth of each kind is dropped.
      const median = (kind: string) => percentile(samples[kind].slice(16), 50);
      const p90 = (kind: string) => percentile(samples[kind].slice(16), 90);
      const report = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, { medianMs: +median(kind).toFixed(2), p90Ms: +p90(kind).toFixed(2) }]));
      figures.tokenTiming = report;
      // The secret-dependent cases run the same single indexed lookup; only a large systematic gap would fail.
      const bound = Math.max(3, 0.5 * median('unknown'));
      expect(Math.abs(median('revoked') - median('unknown'))).toBeLessThan(bound);
      expect(Math.abs(median('expired') - median('unknown'))).toBeLessThan(bound);
      // A malformed token is refused before the lookup: faster, which reveals only that it is malformed.
      expect(median('malformed')).toBeLessThan(median('unknown') + bound);
    }, 60_000);
  });

  describe('request body size limit', () => {
    it.each([
      ['purchase', 'POST', '/api/v1/quotes', 70 * 1024],
      ['payout', 'POST', '/api/v1/batches', 1_100 * 1024],
    ] as const)('%s gateway: a body over the limit is refused with 413 PAYLOAD_TOO_LARGE before anything runs', async (service, method, path, size) => {
      const baseUrl = service === 'purchase' ? stack.purchase.url : stack.payout.url;
      const before = await moneyState();
      const padded = JSON.stringify({ reference: 'x'.repeat(size) });
      const declared = await call(baseUrl, { method, path, token: owner.token, rawBody: padded });
      // Chunked, without a Content-Length: the limit still holds while streaming.
      const chunks = [Buffer.from('{"reference":"'), ...Array.from({ length: Math.ceil(size / 16_384) }, () => Buffer.alloc(16_384, 'x')), Buffer.from('"}')];
      const streamed = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
        body: new ReadableStream({
          pull(controller) {
            const next = chunks.shift();
            if (next) controller.enqueue(next);
            else controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit & { duplex: 'half' });
      for (const [status, body] of [
        [declared.status, declared.body],
        [streamed.status, await streamed.json()],
      ] as const) {
        expect(status).toBe(413);
        expect(JSON.stringify(body)).toContain('PAYLOAD_TOO_LARGE');
      }
      expect(await moneyState()).toBe(before);
    });
  });

  describe('security headers', () => {
    it('every kind of answer carries them, and nothing names the framework', async () => {
      const answers: Array<[string, HttpAnswer]> = [
        ['purchase 200', await call(stack.purchase.url, { path: '/api/v1/limits', token: owner.token })],
        ['purchase 401', await call(stack.purchase.url, { path: '/api/v1/limits' })],
        ['purchase 404', await call(stack.purchase.url, { path: '/api/v1/nothing-here', token: owner.token })],
        ['purchase 422', await call(stack.purchase.url, { method: 'POST', path: '/api/v1/quotes', token: owner.token, body: {} })],
        ['purchase fulfilment', await call(stack.purchase.url, { path: `/api/v1/transactions/${owned.transaction}/fulfilment`, token: owner.token })],
        ['payout 200', await call(stack.payout.url, { path: '/api/v1/account', token: owner.token })],
        ['payout 401', await call(stack.payout.url, { path: '/api/v1/account', token: 'nope' })],
        ['payout delivery', await call(stack.payout.url, { path: `/api/v1/payouts/${encodeURIComponent(owned.payout)}/delivery`, token: owner.token })],
        ['health', await call(stack.payout.url, { path: '/health/live' })],
      ];
      const expected: Record<string, RegExp> = {
        'x-content-type-options': /^nosniff$/,
        'x-frame-options': /^(DENY|SAMEORIGIN)$/,
        'strict-transport-security': /max-age=\d{7,}/,
        'referrer-policy': /no-referrer/,
        'cross-origin-opener-policy': /same-origin/,
        'cross-origin-resource-policy': /same-origin/,
        'x-dns-prefetch-control': /^off$/,
        'x-permitted-cross-domain-policies': /^none$/,
      };
      for (const [label, answer] of answers) {
        for (const [header, pattern] of Object.entries(expected)) expect([label, header, answer.headers.get(header)]).toEqual([label, header, expect.stringMatching(pattern)]);
        expect([label, answer.headers.get('x-powered-by')]).toEqual([label, null]);
        // Live money state is never offered for conditional caching.
        expect([label, answer.headers.get('etag')]).toEqual([label, null]);
        expect([label, answer.headers.get('content-type')]).toEqual([label, expect.stringMatching(/^application\/json/)]);
      }
      for (const [label, answer] of answers.filter(([name]) => /fulfilment|delivery/.test(name))) {
        expect([label, answer.status, answer.headers.get('cache-control')]).toEqual([label, 200, 'no-store']);
      }
      figures.securityHeaderChecks = answers.length * (Object.keys(expected).length + 3);
    });
  });

  describe('SQL injection in every string field', () => {
    /** Valid requests for every operation; one string field at a time is replaced by an injection. */
    function templates(spareQuote: string): Array<{ service: 'purchase' | 'payout'; method: string; path: string; body?: Json; strings: string[] }> {
      const payout = cashPayout('55', { metadata: { order: '1' } });
      const rtc = { ...cashPayout('55', { method: 'rtc_eft', amount: '12.34' }), recipient: { ...cashPayout('55').recipient, bank_account: bankAccount() } };
      return [
        { service: 'purchase', method: 'GET', path: '/api/v1/products?search=@&country=@', strings: ['query.search', 'query.country'] },
        { service: 'purchase', method: 'GET', path: '/api/v1/transactions?reference=@&status=@&date_from=@', strings: ['query.reference', 'query.status', 'query.date_from'] },
        { service: 'purchase', method: 'GET', path: '/api/v1/reports/summary?date_from=@&date_to=@', strings: ['query.date_from', 'query.date_to'] },
        { service: 'purchase', method: 'GET', path: '/api/v1/quotes/@', strings: ['path'] },
        { service: 'purchase', method: 'GET', path: '/api/v1/transactions/@', strings: ['path'] },
        { service: 'purchase', method: 'GET', path: '/api/v1/transactions/by-reference/@', strings: ['path'] },
        { service: 'purchase', method: 'GET', path: '/api/v1/transactions/@/fulfilment', strings: ['path'] },
        { service: 'purchase', method: 'POST', path: '/api/v1/quotes', body: { product_id: PRODUCTS.rangedAirtime, destination_amount: '25.00', credit_party_identifier: { mobile_number: '27821234555' } }, strings: ['destination_amount', 'credit_party_identifier.mobile_number'] },
        { service: 'purchase', method: 'POST', path: '/api/v1/transactions', body: { quote_id: spareQuote, reference: 'ref' }, strings: ['quote_id', 'reference', 'header.idempotency-key'] },
        { service: 'purchase', method: 'POST', path: '/api/v1/lookups/mobile-number', body: { mobile_number: '27821234567' }, strings: ['mobile_number'] },
        { service: 'purchase', method: 'POST', path: '/api/v1/lookups/statement', body: { product_id: PRODUCTS.bill, account_number: '4000123456', account_qualifier: 'x' }, strings: ['account_number', 'account_qualifier'] },
        { service: 'purchase', method: 'POST', path: '/api/v1/lookups/account', body: { product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: '27821234567' } }, strings: ['credit_party_identifier.mobile_number'] },
        { service: 'payout', method: 'GET', path: '/api/v1/payouts/@', strings: ['path'] },
        { service: 'payout', method: 'GET', path: '/api/v1/payouts/@/delivery', strings: ['path'] },
        { service: 'payout', method: 'POST', path: '/api/v1/payouts/@/resend-sms', strings: ['path'] },
        { service: 'payout', method: 'GET', path: '/api/v1/batches/@', strings: ['path'] },
        {
          service: 'payout',
          method: 'POST',
          path: '/api/v1/payouts',
          body: payout,
          strings: ['reference', 'amount', 'currency', 'method', 'recipient.first_name', 'recipient.surname', 'recipient.phone', 'recipient.id_type', 'recipient.id_number', 'recipient.country_of_issue', 'recipient.nationality', 'recipient.email', 'metadata.order'],
        },
        { service: 'payout', method: 'POST', path: '/api/v1/payouts', body: rtc, strings: ['recipient.bank_account.bank_name', 'recipient.bank_account.account_number', 'recipient.bank_account.account_name', 'recipient.bank_account.branch_code'] },
        { service: 'payout', method: 'POST', path: '/api/v1/batches', body: { reference: 'batch', payouts: [cashPayout('55')] }, strings: ['reference', 'payouts.0.reference', 'payouts.0.recipient.first_name'] },
      ];
    }

    function inject(template: Json, field: string, value: string): { path: string; body?: Json; headers: Record<string, string> } {
      const headers: Record<string, string> = template.service === 'purchase' && template.method === 'POST' && template.path === '/api/v1/transactions' ? { 'idempotency-key': uniqueKey('sqli') } : {};
      let path = template.path as string;
      const body = template.body ? structuredClone(template.body) : undefined;
      // Fields not under test keep unique, valid values, so only the injected one can be at fault.
      if (body?.reference) body.reference = uniqueReference('sqli');
      if (body?.payouts) body.payouts = body.payouts.map((item: Json) => ({ ...item, reference: uniqueReference('sqli-item') }));
      if (field === 'path') path = path.replace('@', encodeURIComponent(value));
      else if (field.startsWith('query.')) {
        const name = field.slice(6);
        path = path.replace(new RegExp(`${name}=@`), `${name}=${encodeURIComponent(value)}`);
      } else if (field.startsWith('header.')) headers[field.slice(7)] = value;
      else {
        const keys = field.split('.');
        let target = body;
        for (const key of keys.slice(0, -1)) target = target[key];
        target[keys.at(-1)!] = value;
      }
      // Unused query placeholders get harmless values.
      path = path.replace(/=@/g, '=2026-01-01').replace('/@', '/none');
      return { path, body, headers };
    }

    it('no 5xx, no delay from pg_sleep, no change from a refusal, and accepted values stored as plain data', async () => {
      const purchaseDoc = await OpenApiResponseValidator.fromApp(stack.purchase.http, 'purchase');
      const payoutDoc = await OpenApiResponseValidator.fromApp(stack.payout.http, 'payout');
      const spare = await createQuote(stack.purchase.url, owner.token);
      const problems: string[] = [];
      let cases = 0;
      const statuses: Record<number, number> = {};
      for (const template of templates(spare.id)) {
        for (const field of template.strings) {
          for (const payload of SQL_INJECTIONS) {
            const request = inject(template, field, payload);
            const baseUrl = template.service === 'purchase' ? stack.purchase.url : stack.payout.url;
            const before = await moneyState();
            const answer = await call(baseUrl, { method: template.method, path: request.path, token: owner.token, headers: request.headers, body: request.body });
            cases += 1;
            statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
            const label = `${template.method} ${template.path} ${field} <- ${payload}: ${answer.status}`;
            if (answer.status >= 500) problems.push(`${label} ${JSON.stringify(answer.body)}`);
            if (answer.elapsedMs > 2_500) problems.push(`${label} took ${Math.round(answer.elapsedMs)} ms`);
            if (answer.status >= 400 && answer.status < 500 && (await moneyState()) !== before) problems.push(`${label} changed money state`);
            const doc = template.service === 'purchase' ? purchaseDoc : payoutDoc;
            problems.push(...doc.check({ method: template.method, path: new URL(request.path, baseUrl).pathname, status: answer.status, body: answer.body }).map((problem) => `${label} ${problem}`));
            // Accepted text comes back exactly as sent: it was a value, never SQL.
            if (answer.status < 300 && template.path === '/api/v1/payouts' && field === 'metadata.order') {
              if (dataOf(answer).metadata.order !== payload) problems.push(`${label} metadata came back as ${dataOf(answer).metadata.order}`);
            }
          }
        }
      }
      figures.sqlInjection = { cases, statuses };
      expect(problems).toEqual([]);
      // The tables an injection would have dropped are all still there.
      expect(JSON.parse(await moneyState()).tables).toBeGreaterThanOrEqual(20);
    }, 120_000);
  });

  describe('the provider callback under forged tokens', () => {
    const forgeries = () => {
      const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
      return [
        ['a random token', randomBytes(32).toString('hex')],
        ['the real token with its last character changed', flip(CALLBACK_TOKEN, CALLBACK_TOKEN.length - 1)],
        ['the real token with its first character changed', flip(CALLBACK_TOKEN, 0)],
        ['the real token in upper case', CALLBACK_TOKEN.toUpperCase()],
        ['the real token one character short', CALLBACK_TOKEN.slice(0, -1)],
        ['the real token with a character appended', `${CALLBACK_TOKEN}0`],
        ['the real token twice', CALLBACK_TOKEN.repeat(2)],
        ['an SQL injection', encodeURIComponent("' OR '1'='1")],
        ['a path traversal', '..%2F..%2Fhealth%2Flive'],
        ['a NUL byte', '%00'],
        ['a very long token', 'a'.repeat(4000)],
      ] as const;
    };

    it('schedules nothing for any forgery (404 like an unknown route), and does for the real token', async () => {
      const body = { external_id: owned.transaction, transaction_id: 1, status: 'COMPLETED' };
      const unknownRoute = await call(stack.purchase.url, { method: 'POST', path: '/api/v1/provider/nothing', body });
      const markers = async () =>
        (await stack.sql<{ n: number }>(`SELECT count(*)::int AS n FROM purchase_callback_markers WHERE transaction_id = $1`, [owned.transaction]))[0].n;
      const callbackJobs = async () => (await stack.sql<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_messages WHERE job_id LIKE $1`, [`verify.${owned.transaction}.callback.%`]))[0].n;
      const [markersBefore, jobsBefore] = [await markers(), await callbackJobs()];
      const list = forgeries();
      for (const [label, token] of list) {
        const answer = await call(stack.purchase.url, { method: 'POST', path: `/api/v1/provider/callback/${token}`, body });
        expect([label, answer.status]).toEqual([label, 404]);
        expect([label, answer.body]).toEqual([label, unknownRoute.body]);
      }
      // Bursts of forgeries change nothing either.
      await Promise.all(Array.from({ length: 50 }, () => call(stack.purchase.url, { method: 'POST', path: `/api/v1/provider/callback/${randomBytes(32).toString('hex')}`, body })));
      expect([await markers(), await callbackJobs()]).toEqual([markersBefore, jobsBefore]);

      // The same request with the real token is accepted and leaves a marker: the check above could fail.
      const genuine = await call(stack.purchase.url, { method: 'POST', path: `/api/v1/provider/callback/${CALLBACK_TOKEN}`, body });
      expect(genuine.status).toBe(200);
      expect(await markers()).toBe(markersBefore + 1);
      figures.forgedCallbacks = list.length + 50;
    });
  });
});
