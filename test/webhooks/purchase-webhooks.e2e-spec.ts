import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';
import { sendWebhook, systemHostResolver, verifySignature, WebhookEndpointsService } from '#webhooks';
import { DataSource } from 'typeorm';
// The repositories are the lib's own (not exported): built here to give the service a production config.
import { WebhookDeliveryRepository } from '../../libs/webhooks/src/persistence/webhook-delivery.repository.js';
import { WebhookEndpointRepository } from '../../libs/webhooks/src/persistence/webhook-endpoint.repository.js';
import { mobile, purchase, settle } from '../purchase/purchase-helpers.js';
import { bearer, eventually, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { FAST_WEBHOOKS, startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/**
 * Purchase webhooks end to end: the real worker delivers events written with each status move to
 * a local receiver, which checks every signature against the secret the API showed once.
 */
describe('purchase webhooks', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startPurchaseStack({ worker: FAST_WEBHOOKS, gateway: FAST_WEBHOOKS });
    vendor = await stack.vendor();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    // This file's delivery jobs die with it: later stacks (other test files) must not relay them to a closed receiver.
    await stack?.db.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`).catch(() => undefined);
    await receiver?.close();
    await stack?.close();
  });

  const api = () => stack.gateway.http();
  const register = (token = vendor.token, events = ['transaction.completed', 'transaction.failed', 'transaction.reversed', 'transaction.review']) =>
    api().post('/api/v1/webhook-endpoints').set(bearer(token)).send({ url: receiver.url, events });

  it('delivers every transaction event, signed with the secret shown once, with the event written in the move\'s transaction', async () => {
    const created = await register().expect(201);
    expect(created.body).toMatchObject({ success: true, message: 'OK', data: { url: receiver.url, enabled: true, secret: expect.stringMatching(/^whsec_/) } });
    const { id: endpointId, secret } = created.body.data as { id: string; secret: string };
    // Shown once: never in a read, and stored only encrypted.
    const read = await api().get(`/api/v1/webhook-endpoints/${endpointId}`).set(bearer(vendor.token)).expect(200);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    const [stored] = await stack.db.query(`SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1`, [endpointId]);
    expect(stored.secret_encrypted).not.toContain(secret);
    expect(stack.gateway.app.get(FieldEncryption).decrypt(stored.secret_encrypted, `webhook-endpoint-secret:${endpointId}`)).toBe(secret);

    const bought = await Promise.all(['02', '01', '04', '05'].map((suffix) => purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(`278212350${suffix}`) })));
    const [completed, failed, reversed, review] = bought.map((item) => item.transaction.id);
    await Promise.all([
      settle(stack, vendor, completed, ['completed']),
      settle(stack, vendor, failed, ['failed']),
      settle(stack, vendor, reversed, ['reversed']),
      settle(stack, vendor, review, ['review'], 30_000),
    ]);
    const expected: Array<[string, string]> = [
      [completed, 'transaction.completed'],
      [failed, 'transaction.failed'],
      [reversed, 'transaction.completed'],
      [reversed, 'transaction.reversed'],
      [review, 'transaction.review'],
    ];
    const receipts = await eventually(
      async () => receiver.receipts.filter((receipt) => bought.some((item) => item.transaction.id === receipt.event.data.id)),
      (list) => expected.every(([id, type]) => list.some((receipt) => receipt.event.data.id === id && receipt.event.type === type)),
      30_000,
    );
    for (const receipt of receipts) {
      expect(verifySignature(String(receipt.headers['gateway-signature']), receipt.body, secret)).toBe(true);
      expect(verifySignature(String(receipt.headers['gateway-signature']), receipt.body, 'whsec_wrong')).toBe(false);
      expect(receipt.headers['gateway-event-id']).toBe(receipt.event.id);
      expect(receipt.event.created_at).toEqual(expect.any(String));
      // The resource as GET /transactions/{id} answers it, never a PIN.
      expect(Object.keys(receipt.event.data).sort()).toEqual(
        ['charge_minor', 'completed_at', 'created_at', 'currency', 'destination_amount', 'destination_unit', 'error_code', 'fulfilment_available', 'id', 'product_id', 'quote_id', 'reference', 'reversed_at', 'status', 'updated_at'].sort(),
      );
    }
    expect(new Set(receipts.map((receipt) => receipt.event.id)).size).toBe(new Set(receipts.map((receipt) => `${receipt.event.data.id}/${receipt.event.type}`)).size);
    expect(receipts.find((receipt) => receipt.event.data.id === failed)!.event.data).toMatchObject({ status: 'failed', error_code: expect.any(String) });

    // Every status move has its event (same transaction), and no delivery is marked delivered without a 2xx attempt.
    const moves: { transaction_id: string; to_status: string }[] = await stack.db.query(
      `SELECT transaction_id, to_status FROM purchase_transaction_events WHERE transaction_id = ANY($1::uuid[]) AND to_status <> 'pending'`,
      [bought.map((item) => item.transaction.id)],
    );
    const events: { resource_id: string; type: string }[] = await stack.db.query(`SELECT resource_id, type FROM webhook_events WHERE resource_id = ANY($1::uuid[])`, [
      bought.map((item) => item.transaction.id),
    ]);
    expect(events.map((event) => `${event.resource_id}/${event.type}`).sort()).toEqual(moves.map((move) => `${move.transaction_id}/transaction.${move.to_status}`).sort());
    const [{ unproven }] = await stack.db.query(
      `SELECT count(*)::int AS unproven FROM webhook_deliveries d WHERE d.status = 'delivered'
          AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id AND a.http_status BETWEEN 200 AND 299)`,
    );
    expect(unproven).toBe(0);

    // The delivery log and a redelivery on request.
    const log = await api().get(`/api/v1/webhook-endpoints/${endpointId}/deliveries`).set(bearer(vendor.token)).expect(200);
    const first = (log.body.data.items as Array<{ event_id: string; status: string; attempts: number; last_http_status: number }>).find((entry) => entry.status === 'delivered')!;
    expect(first).toMatchObject({ attempts: 1, last_http_status: 200 });
    const before = receiver.receipts.filter((receipt) => receipt.event.id === first.event_id).length;
    const again = await api().post(`/api/v1/webhook-endpoints/${endpointId}/events/${first.event_id}/redeliver`).set(bearer(vendor.token)).expect(202);
    expect(again.body.data).toMatchObject({ event_id: first.event_id, redelivery_of: expect.any(String), status: 'pending' });
    await eventually(
      async () => receiver.receipts.filter((receipt) => receipt.event.id === first.event_id).length,
      (count) => count === before + 1,
    );
    await api().delete(`/api/v1/webhook-endpoints/${endpointId}`).set(bearer(vendor.token)).expect(200);
  }, 90_000);

  it('signs with both secrets while a rotation overlaps, then with the new one only', async () => {
    const created = await register(vendor.token, ['transaction.completed']).expect(201);
    const { id: endpointId, secret: oldSecret } = created.body.data as { id: string; secret: string };
    const rotated = await api().post(`/api/v1/webhook-endpoints/${endpointId}/rotate-secret`).set(bearer(vendor.token)).send({ overlap_seconds: 3600 }).expect(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.data.previous_secret_expires_at).toEqual(expect.any(String));

    const during = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821235102') });
    await settle(stack, vendor, during.transaction.id, ['completed']);
    const signed = await eventually(async () => receiver.receipts.find((receipt) => receipt.event.data.id === during.transaction.id), (found) => found !== undefined, 30_000);
    const header = String(signed!.headers['gateway-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(header, signed!.body, oldSecret)).toBe(true);
    expect(verifySignature(header, signed!.body, newSecret)).toBe(true);

    // Overlap 0 ends the old secret at once.
    const again = await api().post(`/api/v1/webhook-endpoints/${endpointId}/rotate-secret`).set(bearer(vendor.token)).send({ overlap_seconds: 0 }).expect(200);
    const latest = again.body.data.secret as string;
    const after = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821235202') });
    await settle(stack, vendor, after.transaction.id, ['completed']);
    const signedAfter = await eventually(async () => receiver.receipts.find((receipt) => receipt.event.data.id === after.transaction.id), (found) => found !== undefined, 30_000);
    const headerAfter = String(signedAfter!.headers['gateway-signature']);
    expect(headerAfter.match(/v1=/g)).toHaveLength(1);
    expect(verifySignature(headerAfter, signedAfter!.body, latest)).toBe(true);
    expect(verifySignature(headerAfter, signedAfter!.body, newSecret)).toBe(false);
    await api().delete(`/api/v1/webhook-endpoints/${endpointId}`).set(bearer(vendor.token)).expect(200);
  }, 90_000);

  it("answers 404 for another vendor's endpoint, on every operation", async () => {
    const created = await register().expect(201);
    const endpointId = created.body.data.id as string;
    const other = await stack.vendor({ name: 'Other vendor' });
    const base = `/api/v1/webhook-endpoints/${endpointId}`;
    for (const request of [
      api().get(base),
      api().patch(base).send({ enabled: false }),
      api().delete(base),
      api().post(`${base}/rotate-secret`).send({}),
      api().get(`${base}/deliveries`),
      api().post(`${base}/events/00000000-0000-4000-8000-000000000000/redeliver`),
    ]) {
      const response = await request.set(bearer(other.token)).expect(404);
      expect(response.body).toMatchObject({ success: false, message: 'NOT_FOUND', error: { code: 'NOT_FOUND' } });
    }
    expect((await api().get('/api/v1/webhook-endpoints').set(bearer(other.token)).expect(200)).body.data).toEqual([]);
    // Nothing changed: still enabled, same secret row.
    expect((await api().get(base).set(bearer(vendor.token)).expect(200)).body.data.enabled).toBe(true);
    await api().delete(base).set(bearer(vendor.token)).expect(200);
  });

  it('enforces webhooks:read and webhooks:write, on the token and as a vendor switch', async () => {
    const reader = await vendor.issue(['webhooks:read']);
    const none = await vendor.issue(['transactions:read']);
    expect((await register(reader.token).expect(403)).body.error.code).toBe('FORBIDDEN');
    await api().get('/api/v1/webhook-endpoints').set(bearer(reader.token)).expect(200);
    await api().get('/api/v1/webhook-endpoints').set(bearer(none.token)).expect(403);
    const switchedOff = await stack.vendor({ name: 'Switched off' });
    await stack.db.query(`UPDATE vendors SET enabled_abilities = array_remove(enabled_abilities, 'webhooks:write') WHERE id = $1`, [switchedOff.vendor.id]);
    await register(switchedOff.token).expect(403);
    expect(await stack.db.query(`SELECT 1 FROM webhook_endpoints WHERE vendor_id = $1`, [switchedOff.vendor.id])).toHaveLength(0);
  });

  it('refuses events of the other gateway and non-URLs with VALIDATION_FAILED', async () => {
    const response = await api().post('/api/v1/webhook-endpoints').set(bearer(vendor.token)).send({ url: 'not a url', events: ['payout.paid'] }).expect(422);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(response.body)).toContain('payout.paid');
  });

  describe('in production (SSRF)', () => {
    const production = () => Object.assign(Object.create(GatewayEnv.prototype) as GatewayEnv, stack.gateway.app.get(GatewayEnv), { APP_ENV: 'production' });

    it.each([
      ['http://127.0.0.1:8443/hooks', 'url must use https'],
      ['https://127.0.0.1/hooks', 'private, loopback or link-local'],
      ['https://localhost/hooks', 'private, loopback or link-local'],
      ['https://169.254.169.254/latest/meta-data', 'private, loopback or link-local'],
      ['https://10.1.2.3/hooks', 'private, loopback or link-local'],
      ['https://[::1]/hooks', 'private, loopback or link-local'],
      ['https://[::ffff:192.168.0.1]/hooks', 'private, loopback or link-local'],
    ])('refuses to register %s', async (url, problem) => {
      const service = new WebhookEndpointsService(
        stack.db,
        new WebhookEndpointRepository(stack.db),
        new WebhookDeliveryRepository(stack.db),
        stack.gateway.app.get(FieldEncryption),
        production(),
        systemHostResolver,
      );
      await expect(service.create(vendor.vendor.id, 'purchase', { url, events: ['transaction.completed'] })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await service.create(vendor.vendor.id, 'purchase', { url, events: ['transaction.completed'] }).catch((error: { fieldErrors?: unknown; details?: unknown }) => {
        expect(JSON.stringify(error)).toContain(problem);
      });
      expect(await stack.gateway.app.get(DataSource).query(`SELECT 1 FROM webhook_endpoints WHERE url = $1`, [url])).toHaveLength(0);
    });

    it('refuses to deliver to a loopback address after resolving it, without connecting', async () => {
      const before = receiver.receipts.length;
      const result = await sendWebhook(receiver.url.replace('127.0.0.1', 'localhost'), {}, '{}', { production: true, connectTimeoutMs: 1000, responseTimeoutMs: 1000 });
      expect(result).toMatchObject({ httpStatus: null, error: expect.stringContaining('refused') });
      // The same request outside production reaches the receiver: the refusal is the guard, not the network.
      const allowed = await sendWebhook(receiver.url, {}, JSON.stringify({ id: 'x', type: 'probe', created_at: '', data: {} }), { production: false, connectTimeoutMs: 1000, responseTimeoutMs: 1000 });
      expect(allowed.httpStatus).toBe(200);
      expect(receiver.receipts.length).toBe(before + 1);
    });
  });
});
