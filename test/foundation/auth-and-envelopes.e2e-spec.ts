import { DataSource } from 'typeorm';
import { TokenService, VendorService } from '#auth';
import { startPayoutGateway, startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { bearer, createTestVendor, type TestVendor } from '../support/vendors.js';
import { ProbeController } from './probe.controller.js';

describe('tokens, guard and envelopes', () => {
  let purchase: RunningApp;
  let payout: RunningApp;
  let vendor: TestVendor;

  beforeAll(async () => {
    purchase = await startPurchaseGateway({ extraControllers: [ProbeController] });
    payout = await startPayoutGateway({ extraControllers: [ProbeController] });
    vendor = await createTestVendor(purchase.app);
  });

  afterAll(async () => {
    await purchase?.close();
    await payout?.close();
  });

  describe('purchase envelope', () => {
    it('wraps success as {success, message: OK, data}', async () => {
      const response = await purchase.http().get('/api/v1/probe/catalogue').set(bearer(vendor.token)).expect(200);
      expect(response.body).toEqual({ success: true, message: 'OK', data: { vendor_id: vendor.vendor.id } });
    });

    it('answers a missing token with 401 UNAUTHENTICATED', async () => {
      const response = await purchase.http().get('/api/v1/probe/catalogue').expect(401);
      expect(response.body).toEqual({ success: false, message: 'UNAUTHENTICATED', error: { code: 'UNAUTHENTICATED' } });
      expect(response.headers['www-authenticate']).toBe('Bearer');
    });

    it.each([
      ['a malformed header', 'Basic dXNlcjpwYXNz'],
      ['an empty bearer', 'Bearer '],
      ['a token of the wrong shape', 'Bearer not-a-token'],
      ['a well-formed unknown token', `Bearer gwt_${'A'.repeat(43)}`],
    ])('answers %s with 401', async (_label, header) => {
      const response = await purchase.http().get('/api/v1/probe/catalogue').set('Authorization', header).expect(401);
      expect(response.body.error.code).toBe('UNAUTHENTICATED');
    });

    it('refuses tokens sent in the query string', async () => {
      await purchase.http().get(`/api/v1/probe/catalogue?access_token=${vendor.token}`).expect(401);
    });

    it('answers an expired token with 401', async () => {
      const expired = await vendor.issue(['catalogue:read'], 1);
      await purchase.app.get(DataSource).query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
      await purchase.http().get('/api/v1/probe/catalogue').set(bearer(expired.token)).expect(401);
    });

    it('answers a revoked token with 401 at once', async () => {
      const doomed = await vendor.issue(['catalogue:read']);
      await purchase.http().get('/api/v1/probe/catalogue').set(bearer(doomed.token)).expect(200);
      await purchase.app.get(TokenService).revoke(doomed.id);
      await purchase.http().get('/api/v1/probe/catalogue').set(bearer(doomed.token)).expect(401);
    });

    it('answers a token lacking the ability with 403 FORBIDDEN', async () => {
      const narrow = await vendor.issue(['transactions:read']);
      const response = await purchase.http().get('/api/v1/probe/catalogue').set(bearer(narrow.token)).expect(403);
      expect(response.body).toEqual({ success: false, message: 'FORBIDDEN', error: { code: 'FORBIDDEN' } });
    });

    it('answers 403 when the ability is disabled on the vendor, and 200 again once re-enabled', async () => {
      const other = await createTestVendor(purchase.app, 'Switchable vendor');
      const vendors = purchase.app.get(VendorService);
      await vendors.setAbilities(other.vendor.id, [], ['catalogue:read']);
      await purchase.http().get('/api/v1/probe/catalogue').set(bearer(other.token)).expect(403);
      await vendors.setAbilities(other.vendor.id, ['catalogue:read'], []);
      await purchase.http().get('/api/v1/probe/catalogue').set(bearer(other.token)).expect(200);
    });

    it('denies a route that declares no ability, even with an all-powerful token', async () => {
      const response = await purchase.http().get('/api/v1/probe/undeclared').set(bearer(vendor.token)).expect(403);
      expect(response.body.data).toBeUndefined();
    });

    it('maps validation errors to 422 VALIDATION_FAILED with per-field messages, extra properties included', async () => {
      const response = await purchase.http().post('/api/v1/probe/echo').set(bearer(vendor.token)).send({ name: 7, count: 0, extra: 'x' }).expect(422);
      expect(response.body.success).toBe(false);
      expect(response.body.message).toBe('VALIDATION_FAILED');
      expect(Object.keys(response.body.error.fields).sort()).toEqual(['count', 'extra', 'name']);
    });

    it('answers malformed JSON with 422 in the envelope, not 500', async () => {
      const response = await purchase.http().post('/api/v1/probe/echo').set(bearer(vendor.token)).set('Content-Type', 'application/json').send('{"name": ').expect(422);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('answers an oversized body with 413 in the envelope', async () => {
      const response = await purchase.http().post('/api/v1/probe/echo').set(bearer(vendor.token)).send({ name: 'x'.repeat(200_000), count: 1 }).expect(413);
      expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('turns unknown errors into a generic 500 with a correlation id and no internals', async () => {
      const response = await purchase.http().get('/api/v1/probe/boom').set('X-Request-Id', 'trace-123').expect(500);
      expect(response.body).toEqual({ success: false, message: 'INTERNAL_ERROR', error: { code: 'INTERNAL_ERROR', request_id: 'trace-123' } });
      expect(JSON.stringify(response.body)).not.toContain('hunter2');
    });

    it('echoes a safe X-Request-Id and replaces an unsafe one', async () => {
      const echoed = await purchase.http().get('/health/live').set('X-Request-Id', 'abc-123');
      expect(echoed.headers['x-request-id']).toBe('abc-123');
      const replaced = await purchase.http().get('/health/live').set('X-Request-Id', 'bad id\twith spaces');
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('answers unknown routes with 404 NOT_FOUND in the envelope', async () => {
      const response = await purchase.http().get('/api/v1/nowhere').set(bearer(vendor.token)).expect(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('payout envelope', () => {
    it('wraps success as {success, data}', async () => {
      const response = await payout.http().get('/api/v1/probe/payouts').set(bearer(vendor.token)).expect(200);
      expect(response.body).toEqual({ success: true, data: { vendor_id: vendor.vendor.id } });
    });

    it('answers 401 with code, fixed message and errors', async () => {
      const response = await payout.http().get('/api/v1/probe/payouts').expect(401);
      expect(response.body).toEqual({ success: false, code: 'UNAUTHENTICATED', message: 'Authentication is required.', errors: {} });
    });

    it('answers a token without the scope with 403', async () => {
      const readOnlyPurchase = await vendor.issue(['catalogue:read']);
      const response = await payout.http().get('/api/v1/probe/payouts').set(bearer(readOnlyPurchase.token)).expect(403);
      expect(response.body.code).toBe('FORBIDDEN');
      expect(typeof response.body.message).toBe('string');
    });

    it('reports validation failures per field path', async () => {
      const response = await payout.http().post('/api/v1/probe/echo').set(bearer(vendor.token)).send({ count: 'x' }).expect(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors.name).toEqual(expect.arrayContaining([expect.any(String)]));
      expect(response.body.errors.count).toBeDefined();
    });
  });

  describe('operational endpoints', () => {
    it('serve liveness, readiness with PostgreSQL and Redis, and metrics without a token', async () => {
      await purchase.http().get('/health/live').expect(200, { status: 'ok' });
      const ready = await purchase.http().get('/health/ready').expect(200);
      expect(ready.body.info).toMatchObject({ postgres: { status: 'up' }, redis: { status: 'up' } });
      const metrics = await purchase.http().get('/metrics').expect(200);
      expect(metrics.text).toContain('http_request_duration_seconds');
      expect(metrics.text).toContain('process_resident_memory_bytes');
    });
  });
});
