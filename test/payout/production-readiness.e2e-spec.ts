import { randomBytes } from 'node:crypto';
import { PayoutLedgerService, PayoutMethodsService, PAYOUT_METHODS } from '#payout';
import { startPayoutGateway, type RunningApp } from '../support/apps.js';
import { bearer, createTestVendor } from '../support/vendors.js';
import { cashPayout } from './payout-requests.js';

/** APP_ENV=production fails closed: no provider credentials or keys, or an unreleased vendor, moves no money. */
describe('production fails closed', () => {
  const apps: RunningApp[] = [];
  afterAll(async () => Promise.all(apps.map((app) => app.close())));

  async function vendorOn(gateway: RunningApp) {
    const vendor = await createTestVendor(gateway.app, 'Production vendor');
    await gateway.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    await gateway.app.get(PayoutLedgerService).fund(vendor.vendor.id, 100_000n);
    return vendor;
  }

  it('answers PROVIDER_NOT_CONFIGURED (503) and shows methods unavailable without provider credentials or encryption keys', async () => {
    const gateway = await startPayoutGateway({ config: { APP_ENV: 'production' } });
    apps.push(gateway);
    const vendor = await vendorOn(gateway);
    const response = await gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout()).expect(503);
    expect(response.body).toMatchObject({ success: false, code: 'PROVIDER_NOT_CONFIGURED' });
    const methods = (await gateway.http().get('/api/v1/methods').set(bearer(vendor.token)).expect(200)).body.data;
    expect(methods.every((method: { available: boolean }) => method.available === false)).toBe(true);
    expect((await gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data.reserved).toBe('0.00');
  });

  it('answers VENDOR_NOT_RELEASED (409) for a vendor not yet accepted for production', async () => {
    const gateway = await startPayoutGateway({
      config: {
        APP_ENV: 'production',
        PAYOUT_PROVIDER_BASE_URL: 'http://127.0.0.1:9',
        PAYOUT_PROVIDER_API_KEY: 'k',
        ENCRYPTION_KEYS: `p1:${randomBytes(32).toString('base64')}`,
        ENCRYPTION_ACTIVE_KEY_ID: 'p1',
      },
    });
    apps.push(gateway);
    const vendor = await vendorOn(gateway);
    const response = await gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout()).expect(409);
    expect(response.body.code).toBe('VENDOR_NOT_RELEASED');
    const batch = await gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: 'prod-batch', payouts: [cashPayout()] }).expect(409);
    expect(batch.body.code).toBe('VENDOR_NOT_RELEASED');
  });
});
