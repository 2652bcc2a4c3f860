import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TokenService } from '#auth';
import { CALLBACK_TOKEN, eventually, PRODUCTS, SANDBOX_API_KEY } from '../support/purchase-stack.js';
import { reportFigures } from '../support/reliability/figures.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf } from '../support/reliability/requests.js';
import { scanForSecrets, type Secret } from '../support/reliability/secret-scan.js';
import { assertCompiled, freePort, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, rtcPayout, uniqueReference, voucherPayout } from '../payout/payout-requests.js';
import { startReceiver, type WebhookReceiver } from '../webhooks/webhook-receiver.js';

const LOG_LEVEL = process.env.LOG_SCAN_LEVEL ?? 'info';

/**
 * The compiled gateways and worker run as child processes with LOG_LEVEL=info while a vendor
 * does everything that handles a secret: PIN and eSIM purchases with provider callbacks,
 * fulfilment and delivery reads, SMS resends, failed and revoked tokens, tokens in the query
 * string, forged callbacks. Their whole output is then searched for every secret they saw.
 */
describe('logs written while handling secrets', () => {
  let stack: ReliabilityStack;
  let vendor: TestVendor;
  const apps: SpawnedApp[] = [];
  const secrets: Secret[] = [];
  let purchaseUrl: string;
  let payoutUrl: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    assertCompiled('worker', 'purchaseGateway', 'payoutGateway');
    stack = await startReliabilityStack({ worker: false });
    vendor = await stack.purchaseVendor({ name: 'Secret keeper' });
    const { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } = await import('#payout');
    await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    await stack.payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, 10_000_000n, 'log scan');

    const [purchasePort, payoutPort] = [await freePort(), await freePort()];
    const env = { ...stack.env, LOG_LEVEL, CALLBACK_BASE_URL: `http://127.0.0.1:${purchasePort}/api/v1/provider/callback` };
    apps.push(spawnApp('purchaseGateway', env, purchasePort), spawnApp('payoutGateway', env, payoutPort), spawnApp('worker', { ...env, PORT: '0' }));
    await Promise.all(apps.map((app) => app.ready));
    purchaseUrl = apps[0].url;
    payoutUrl = apps[1].url;
    secrets.push({ kind: 'token', value: vendor.token }, { kind: 'callback token', value: CALLBACK_TOKEN }, { kind: 'api key', value: SANDBOX_API_KEY });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.kill('SIGTERM')));
    await receiver?.close();
    await closeCheckingBooks(stack, () => [vendor.vendor.id]);
  });

  it('contain no token, PIN, serial, activation code, ID number, webhook secret or callback path', async () => {
    // Webhook endpoints on both gateways, each secret rotated (both sign during the overlap): the
    // gateways create and rotate them, the worker decrypts and signs with them for every event below.
    receiver = await startReceiver();
    for (const [url, events] of [
      [purchaseUrl, ['transaction.completed', 'transaction.failed', 'transaction.reversed']],
      [payoutUrl, ['payout.paid', 'payout.failed', 'payout.reversed', 'batch.completed']],
    ] as const) {
      const created = await call(url, { method: 'POST', path: '/api/v1/webhook-endpoints', token: vendor.token, body: { url: receiver.url, events } });
      expect(created.status).toBe(201);
      const endpoint = dataOf(created) as { id: string; secret: string };
      const rotated = await call(url, { method: 'POST', path: `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, token: vendor.token, body: {} });
      expect(rotated.status).toBe(200);
      secrets.push({ kind: 'webhook secret', value: endpoint.secret }, { kind: 'webhook secret', value: (dataOf(rotated) as { secret: string }).secret });
    }
    // Purchases: PINs, an eSIM, a decline, a reversal (callbacks), a callback ahead of the status, a provider timeout.
    const bought: string[] = [];
    for (const [product, suffix] of [
      [PRODUCTS.pin, '55'],
      [PRODUCTS.pin, '04'],
      [PRODUCTS.esim, '55'],
      [PRODUCTS.fixedAirtime, '01'],
      [PRODUCTS.fixedAirtime, '06'],
      [PRODUCTS.fixedAirtime, '02'],
    ] as const) {
      const quote = await createQuote(purchaseUrl, vendor.token, airtimeQuote(suffix, product));
      const answer = await buy(purchaseUrl, vendor.token, quote.id);
      expect(answer.status).toBe(202);
      bought.push(dataOf(answer).id);
    }

    // Payouts of every kind, delivery reads, SMS resends up to the provider's cap, a batch.
    const payouts = [cashPayout('55'), cashPayout('55', { method: 'bank_b_cardless' }), voucherPayout('55'), rtcPayout('55'), cashPayout('01')];
    for (const body of payouts) {
      // The last one is refused by the provider: 422 PROVIDER_REJECTED (issue 25).
      expect((await call(payoutUrl, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body })).status).toBe(body === payouts[4] ? 422 : 200);
      secrets.push({ kind: 'id number', value: body.recipient.id_number });
    }
    const batchReference = uniqueReference('log-batch');
    expect((await call(payoutUrl, { method: 'POST', path: '/api/v1/batches', token: vendor.token, body: { reference: batchReference, payouts: [cashPayout('55'), voucherPayout('55')] } })).status).toBe(202);
    for (let resend = 0; resend < 4; resend++) await call(payoutUrl, { method: 'POST', path: `/api/v1/payouts/${encodeURIComponent(payouts[0].reference)}/resend-sms`, token: vendor.token });

    // Tokens used wrongly: revoked, unknown, in the query string (where proxies would log them).
    const revoked = await vendor.issue(['limits:read']);
    await stack.purchase.app.get(TokenService).revoke(revoked.id);
    const unknown = `gwt_${randomBytes(32).toString('base64url')}`;
    secrets.push({ kind: 'token', value: revoked.token }, { kind: 'token', value: unknown });
    expect((await call(purchaseUrl, { path: '/api/v1/limits', token: revoked.token })).status).toBe(401);
    expect((await call(purchaseUrl, { path: '/api/v1/limits', token: unknown })).status).toBe(401);
    expect((await call(purchaseUrl, { path: `/api/v1/limits?access_token=${vendor.token}` })).status).toBe(401);
    expect((await call(payoutUrl, { path: `/api/v1/account?access_token=${vendor.token}` })).status).toBe(401);
    // Forged callbacks next to the genuine ones the provider sends.
    for (const forged of [randomBytes(32).toString('hex'), CALLBACK_TOKEN.slice(0, -1)]) {
      expect((await call(purchaseUrl, { method: 'POST', path: `/api/v1/provider/callback/${forged}`, body: { external_id: bought[0] } })).status).toBe(404);
    }

    // Everything settles, then every secret is read back through the API (so the apps saw it).
    await eventually(
      () => stack.sql<{ open: number }>(`SELECT count(*)::int AS open FROM purchase_transactions WHERE vendor_id = $1 AND status = 'pending'`, [vendor.vendor.id]),
      (rows) => rows[0].open === 0,
      30_000,
      250,
    );
    await eventually(
      () => stack.sql<{ open: number }>(`SELECT count(*)::int AS open FROM payouts WHERE vendor_id = $1 AND status = 'pending'`, [vendor.vendor.id]),
      (rows) => rows[0].open === 0,
      30_000,
      250,
    );
    for (const id of bought) {
      const answer = await call(purchaseUrl, { path: `/api/v1/transactions/${id}/fulfilment`, token: vendor.token });
      if (answer.status !== 200) continue;
      const { pin, esim } = dataOf(answer);
      if (pin) secrets.push({ kind: 'pin', value: pin.code }, { kind: 'serial', value: pin.serial });
      if (esim) secrets.push({ kind: 'activation code', value: esim.activation_code }, { kind: 'activation code', value: esim.qr_code_payload }, { kind: 'serial', value: esim.iccid });
    }
    for (const reference of [...payouts.map((body) => body.reference)]) {
      const answer = await call(payoutUrl, { path: `/api/v1/payouts/${encodeURIComponent(reference)}/delivery`, token: vendor.token });
      if (answer.status !== 200) continue;
      const delivery = dataOf(answer);
      if (delivery.pin) secrets.push({ kind: 'pin', value: delivery.pin });
      if (delivery.serial) secrets.push({ kind: 'serial', value: delivery.serial });
    }
    expect(secrets.filter((secret) => secret.kind === 'pin').length).toBeGreaterThanOrEqual(3);
    expect(secrets.filter((secret) => secret.kind === 'activation code').length).toBeGreaterThanOrEqual(1);

    // Webhooks were signed and sent with those secrets while the worker logged at info.
    await eventually(async () => receiver.receipts.length, (count) => count >= 4, 30_000);
    // Let the last log lines reach the pipes, then stop the apps so their buffers flush.
    await sleep(500);
    await Promise.all(apps.map((app) => app.kill('SIGTERM')));
    const output = apps.map((app) => app.output()).join('\n');
    const findings = scanForSecrets(output, secrets);
    reportFigures('log-secrets', {
      logLevel: LOG_LEVEL,
      logLines: output.split('\n').length,
      logBytes: output.length,
      secretsLookedFor: secrets.length,
      findings: findings.length,
    });
    // The scan would see them: the logs do describe these requests.
    expect(output).toContain('/api/v1/provider/callback/[REDACTED]');
    expect(output).toContain('"statusCode":401');
    expect(findings).toEqual([]);
  }, 120_000);
});
