import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { sendWebhook, systemHostResolver, WEBHOOK_HOST_RESOLVER, type WebhookHostResolver } from '#webhooks';
import { startPayoutGateway, type RunningApp } from '../support/apps.js';
import { bearer, createTestVendor, type TestVendor } from '../support/vendors.js';
import { startReceiver, type WebhookReceiver } from '../webhooks/webhook-receiver.js';

/**
 * Issue 29: the webhook SSRF guard in production mode (APP_ENV=production), through the real
 * HTTP surface for registration and through the sender for delivery. Names are resolved by an
 * injected resolver (no network needed): `*.vendor.example` answer what the test says; anything
 * else (`localhost`) goes to the system resolver, which knows localhost on every machine.
 */
describe('webhook SSRF guard in production', () => {
  const PUBLIC = '93.184.216.34';
  let rebindCalls = 0;
  const names: Record<string, () => string[]> = {
    'public.vendor.example': () => [PUBLIC],
    'internal.vendor.example': () => ['10.0.0.7'],
    'metadata.vendor.example': () => ['169.254.169.254'],
    'ula.vendor.example': () => ['fd12:3456::1'],
    'loopback.vendor.example': () => ['127.0.0.1'],
    // A public and a private address: the private one must not be reachable through it.
    'mixed.vendor.example': () => [PUBLIC, '192.168.1.5'],
    // DNS rebinding: public when registered, loopback when delivered.
    'rebind.vendor.example': () => (++rebindCalls === 1 ? [PUBLIC] : ['127.0.0.1']),
  };
  const resolver: WebhookHostResolver = async (hostname) => {
    const answer = names[hostname.toLowerCase()];
    if (!answer) return systemHostResolver(hostname);
    return answer().map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  let gateway: RunningApp;
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let port: string;

  beforeAll(async () => {
    gateway = await startPayoutGateway({
      config: { APP_ENV: 'production', ENCRYPTION_KEYS: `p1:${randomBytes(32).toString('base64')}`, ENCRYPTION_ACTIVE_KEY_ID: 'p1' },
      overrides: [{ provide: WEBHOOK_HOST_RESOLVER, useValue: resolver }],
    });
    vendor = await createTestVendor(gateway.app, 'SSRF vendor');
    receiver = await startReceiver();
    port = new URL(receiver.url).port;
  });
  afterAll(async () => {
    await receiver?.close();
    await gateway?.close();
  });

  const endpointRows = (url: string) => gateway.app.get(DataSource).query(`SELECT url FROM webhook_endpoints WHERE vendor_id = $1 AND url = $2`, [vendor.vendor.id, url]);
  const register = (url: string) => gateway.http().post('/api/v1/webhook-endpoints').set(bearer(vendor.token)).send({ url, events: ['payout.paid'] });

  const REFUSED_HOSTS = [
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    '127.0.0.1',
    '0.0.0.0',
    '[::1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[::127.0.0.1]',
    'localhost',
    'LOCALHOST.',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[fe80::1]',
    'internal.vendor.example',
    'metadata.vendor.example',
    'ula.vendor.example',
    'loopback.vendor.example',
    'mixed.vendor.example',
  ];

  it.each(REFUSED_HOSTS)('refuses to register https://%s/hooks with 422 on url, and stores nothing', async (host) => {
    const url = `https://${host}/hooks`;
    const response = await register(url).expect(422);
    expect(response.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(response.body.errors.url.join(' ')).toMatch(/private, loopback or link-local/);
    expect(await endpointRows(url)).toEqual([]);
  });

  it('registers a name that resolves to a public address (the guard is not refusing everything)', async () => {
    const response = await register('https://public.vendor.example/hooks').expect(201);
    expect(response.body.data.url).toBe('https://public.vendor.example/hooks');
    await gateway.http().delete(`/api/v1/webhook-endpoints/${response.body.data.id}`).set(bearer(vendor.token)).expect(200);
  });

  it.each(REFUSED_HOSTS)(
    'never delivers to http://%s (the receiver listens on loopback and gets nothing)',
    async (host) => {
      const before = receiver.receipts.length;
      const result = await sendWebhook(`http://${host}:${port}/hooks`, {}, '{}', { production: true, connectTimeoutMs: 1_000, responseTimeoutMs: 1_000, resolve: resolver });
      expect(result).toMatchObject({ httpStatus: null, error: expect.stringMatching(/^refused: /) });
      expect(receiver.receipts.length).toBe(before);
    },
  );

  it('covers DNS rebinding: a name public at registration but loopback at delivery is refused when connecting', async () => {
    rebindCalls = 0;
    const created = await register(`https://rebind.vendor.example:${port}/hooks`).expect(201);
    const before = receiver.receipts.length;
    const result = await sendWebhook(`http://rebind.vendor.example:${port}/hooks`, {}, '{}', { production: true, connectTimeoutMs: 1_000, responseTimeoutMs: 1_000, resolve: resolver });
    expect(result.error).toMatch(/^refused: /);
    expect(receiver.receipts.length).toBe(before);
    // The same delivery outside production reaches the receiver: the refusal is the guard, not the network.
    const allowed = await sendWebhook(`http://127.1:${port}/hooks`, {}, JSON.stringify({ id: 'x', type: 'probe', created_at: '', data: {} }), {
      production: false,
      connectTimeoutMs: 1_000,
      responseTimeoutMs: 1_000,
      resolve: resolver,
    });
    expect(allowed.httpStatus).toBe(200);
    expect(receiver.receipts.length).toBe(before + 1);
    await gateway.http().delete(`/api/v1/webhook-endpoints/${created.body.data.id}`).set(bearer(vendor.token)).expect(200);
  });
});
