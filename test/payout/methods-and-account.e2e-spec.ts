import { PayoutLedgerService, PayoutMethodsService } from '#payout';
import { bearer } from '../support/vendors.js';
import { startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { cashPayout, rtcPayout, voucherPayout } from './payout-requests.js';

describe('methods and account', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    stack = await startPayoutStack({ worker: false });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const methods = async (token: string) => (await stack.gateway.http().get('/api/v1/methods').set(bearer(token)).expect(200)).body.data;

  it('lists every enabled method with limits, increment, kind, delivery and the effective fee', async () => {
    const vendor = await stack.vendor({ feePerPayoutCents: 500n });
    await stack.gateway.app.get(PayoutMethodsService).configure(vendor.vendor.id, { fees: { voucher_type_2: 150n, rtc_eft: 200n } });
    const listed = await methods(vendor.token);
    const common = { available: true };
    expect(listed).toEqual([
      { ...common, method: 'bank_a_instant_money', name: expect.any(String), minimum: '10.00', maximum: '3000.00', increment: '10.00', requires_bank_account: false, kind: 'cash', delivery: 'pin', fee: '5.00' },
      { ...common, method: 'bank_b_cardless', name: expect.any(String), minimum: '10.00', maximum: '3000.00', increment: '10.00', requires_bank_account: false, kind: 'cash', delivery: 'pin', fee: '5.00' },
      { ...common, method: 'rtc_eft', name: expect.any(String), minimum: '1.00', maximum: '50000.00', increment: '0.01', requires_bank_account: true, kind: 'bank', delivery: null, fee: '2.00' },
      { ...common, method: 'voucher_type_1', name: expect.any(String), minimum: '1.00', maximum: '4000.00', increment: '0.01', requires_bank_account: false, kind: 'voucher', delivery: 'pin', fee: '0.00' },
      { ...common, method: 'voucher_type_2', name: expect.any(String), minimum: '2.00', maximum: '3000.00', increment: '0.01', requires_bank_account: false, kind: 'voucher', delivery: 'pin', fee: '1.50' },
      { ...common, method: 'voucher_type_3', name: expect.any(String), minimum: '2.00', maximum: '2000.00', increment: '0.01', requires_bank_account: false, kind: 'voucher', delivery: 'pin', fee: '0.00' },
      { ...common, method: 'voucher_type_4', name: expect.any(String), minimum: '2.00', maximum: '2500.00', increment: '0.01', requires_bank_account: false, kind: 'voucher', delivery: 'pin', fee: '0.00' },
    ]);
  });

  it('lists only enabled methods; a new vendor has none', async () => {
    const vendor = await stack.vendor();
    await stack.gateway.app.get(PayoutMethodsService).configure(vendor.vendor.id, { disable: ['rtc_eft', 'voucher_type_3'] });
    expect((await methods(vendor.token)).map((m: { method: string }) => m.method)).toEqual(['bank_a_instant_money', 'bank_b_cardless', 'voucher_type_1', 'voucher_type_2', 'voucher_type_4']);
    const fresh = await stack.vendor();
    await stack.gateway.app.get(PayoutMethodsService).configure(fresh.vendor.id, { disable: ['bank_a_instant_money', 'bank_b_cardless', 'rtc_eft', 'voucher_type_1', 'voucher_type_2', 'voucher_type_3', 'voucher_type_4'] });
    expect(await methods(fresh.token)).toEqual([]);
  });

  it('applies limits tightened by operations, in GET /methods and at admission', async () => {
    const vendor = await stack.vendor({ fundCents: 1_000_000n });
    const service = stack.gateway.app.get(PayoutMethodsService);
    await service.configure(vendor.vendor.id, { limits: { bank_a_instant_money: { minimumCents: 5_000n, maximumCents: 100_000n } } });
    const cash = (await methods(vendor.token)).find((m: { method: string }) => m.method === 'bank_a_instant_money');
    expect(cash).toMatchObject({ minimum: '50.00', maximum: '1000.00' });
    for (const amount of ['40.00', '1010.00']) {
      const response = await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55', { amount })).expect(422);
      expect(response.body.errors.amount[0]).toContain('from 50.00 to 1000.00');
    }
    // Limits can only be tightened, and stay on the method's increment.
    await expect(service.configure(vendor.vendor.id, { limits: { voucher_type_1: { maximumCents: 500_000n } } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(service.configure(vendor.vendor.id, { limits: { bank_b_cardless: { minimumCents: 1_500n } } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(service.configure(vendor.vendor.id, { limits: { bank_a_instant_money: { minimumCents: 200_000n } } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(service.configure(vendor.vendor.id, { enable: ['paypal'] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('shows the account: balances as two-place strings, the fee, and funding through the ledger', async () => {
    const vendor = await stack.vendor({ fundCents: 0n, feePerPayoutCents: 350n, name: 'Account vendor' });
    const empty = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
    expect(empty).toEqual({ id: expect.any(String), name: 'Account vendor', available: '0.00', reserved: '0.00', debt: '0.00', fee_per_payout: '3.50', currency: 'ZAR' });
    await stack.gateway.app.get(PayoutLedgerService).fund(vendor.vendor.id, 123_456n, 'top-up');
    await stack.gateway.app.get(PayoutLedgerService).fund(vendor.vendor.id, 1n);
    const funded = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
    expect(funded).toMatchObject({ id: empty.id, available: '1234.57', reserved: '0.00' });
    await expect(stack.gateway.app.get(PayoutLedgerService).fund(vendor.vendor.id, 0n)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('reserves amount plus fee at creation while the payout is unfinished (no worker here)', async () => {
    const vendor = await stack.vendor({ fundCents: 500_000n, feePerPayoutCents: 250n });
    // Batch items wait for the (stopped) worker, so their holds stay reserved.
    await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: 'held', payouts: [cashPayout(), rtcPayout('55', { amount: '10.01' }), voucherPayout('55', { amount: '7.77' })] }).expect(202);
    const account = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
    // 200.00 + 2.50, 10.01 + 2.50, 7.77 + 0.00
    expect(account).toMatchObject({ reserved: '222.78', available: '4777.22' });
  });

  it('keeps the ledger append-only', async () => {
    await expect(stack.dataSource.query(`UPDATE ledger_entries SET amount_cents = amount_cents + 1`)).rejects.toThrow(/append-only/);
    await expect(stack.dataSource.query(`DELETE FROM ledger_entries`)).rejects.toThrow(/append-only/);
  });

  it('refuses a balance below zero even to a direct write', async () => {
    const vendor = await stack.vendor({ fundCents: 100n });
    await expect(stack.dataSource.query(`UPDATE payout_accounts SET available_cents = available_cents - 101 WHERE vendor_id = $1`, [vendor.vendor.id])).rejects.toThrow(/balances_non_negative/);
  });

  it('documents every payout operation with its scope in the OpenAPI document', async () => {
    const document = (await stack.gateway.http().get('/docs-json').expect(200)).body;
    const operations: Array<[string, string, string]> = [
      ['/api/v1/account', 'get', 'payouts:read'],
      ['/api/v1/methods', 'get', 'payouts:read'],
      ['/api/v1/payouts', 'post', 'payouts:write'],
      ['/api/v1/payouts/{reference}', 'get', 'payouts:read'],
      ['/api/v1/batches', 'post', 'payouts:write'],
      ['/api/v1/batches/{reference}', 'get', 'payouts:read'],
      ['/api/v1/payouts/{reference}/delivery', 'get', 'payouts:delivery'],
      ['/api/v1/payouts/{reference}/resend-sms', 'post', 'payouts:write'],
    ];
    for (const [path, method, scope] of operations) {
      const operation = document.paths[path]?.[method];
      expect(operation).toBeDefined();
      expect(operation['x-required-abilities']).toEqual([scope]);
    }
    expect(Object.keys(document.paths['/api/v1/payouts'].post.responses).sort()).toEqual(['200', '401', '403', '409', '415', '422', '429', '500', '503']);
    expect(document.paths['/api/v1/batches'].post.responses['202']).toBeDefined();
    expect(document.components.schemas.PayoutRequest).toBeDefined();
  });
});
