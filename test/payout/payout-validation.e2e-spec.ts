import { bearer } from '../support/vendors.js';
import { startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { FIXED_MESSAGES, bankAccount, cashPayout, recipient, rsaIdNumber, rtcPayout, voucherPayout } from './payout-requests.js';

/** Every rule of POST /api/v1/payouts (payout contract), each with its own `errors` entry; nothing is admitted. */
describe('payout request validation', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack();
    vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 500n });
  });
  afterAll(async () => stack?.close());

  afterEach(async () => {
    // Nothing in this file may reserve or create anything.
    const account = await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200);
    expect(account.body.data).toMatchObject({ available: '1000.00', reserved: '0.00' });
    const [{ count }] = await stack.dataSource.query(`SELECT count(*)::int AS count FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]);
    expect(count).toBe(0);
    expect(await stack.discrepancies()).toEqual([]);
  });

  const post = (body: unknown) => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body as object);

  async function expectRejected(body: unknown, code: keyof typeof FIXED_MESSAGES, field: string, status = 422) {
    const response = await post(body).expect(status);
    expect(response.body).toEqual({ success: false, code, message: FIXED_MESSAGES[code], errors: expect.any(Object) });
    expect(Object.keys(response.body.errors)).toContain(field);
    expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    return response.body.errors as Record<string, string[]>;
  }

  describe('reference (rule 1)', () => {
    it.each([
      ['starting with a separator', '-abc'],
      ['with a space', 'a b'],
      ['with a disallowed character', 'abc#1'],
      ['longer than 100 characters', `a${'b'.repeat(100)}`],
      ['empty', ''],
    ])('refuses a reference %s', async (_label, reference) => {
      await expectRejected(cashPayout('55', { reference }), 'VALIDATION_FAILED', 'reference');
    });

    it('refuses a missing reference', async () => {
      const { reference: _omitted, ...body } = cashPayout();
      await expectRejected(body, 'VALIDATION_FAILED', 'reference');
    });
  });

  describe('amount and currency (rule 3)', () => {
    it.each([['100'], ['100.5'], ['100.000'], ['-100.00'], ['1e3'], ['010.00'], [' 100.00']])('refuses amount %j (two places required)', async (amount) => {
      await expectRejected(cashPayout('55', { amount }), 'VALIDATION_FAILED', 'amount');
    });

    it('refuses a number instead of a decimal string', async () => {
      await expectRejected(cashPayout('55', { amount: 100 }), 'VALIDATION_FAILED', 'amount');
    });

    it('refuses zero', async () => {
      await expectRejected(voucherPayout('55', { amount: '0.00' }), 'VALIDATION_FAILED', 'amount');
    });

    it.each([
      ['below the cash minimum', cashPayout('55', { amount: '0.00' })],
      ['above the cash maximum', cashPayout('55', { amount: '3010.00' })],
      ['below the voucher_type_2 minimum (2.00)', voucherPayout('55', { method: 'voucher_type_2', amount: '1.99' })],
      ['above the voucher_type_3 maximum (2000.00)', voucherPayout('55', { method: 'voucher_type_3', amount: '2000.01' })],
      ['above the rtc_eft maximum', rtcPayout('55', { amount: '50000.01' })],
    ])('refuses an amount %s', async (_label, body) => {
      const errors = await expectRejected(body, 'VALIDATION_FAILED', 'amount');
      expect(errors.amount.join(' ')).toMatch(/amount must be|greater than zero/);
    });

    it('accepts cents on rtc_eft and vouchers but refuses a non-R10 amount on cash rails with AMOUNT_INCREMENT_INVALID (rule 4)', async () => {
      const errors = await expectRejected(cashPayout('55', { amount: '155.00' }), 'AMOUNT_INCREMENT_INVALID', 'amount');
      expect(errors.amount[0]).toContain('multiple of 10.00');
      await expectRejected(cashPayout('55', { method: 'bank_b_cardless', amount: '10.50' }), 'AMOUNT_INCREMENT_INVALID', 'amount');
    });

    it('reports a cash amount off R10 together with the other problems: AMOUNT_INCREMENT_INVALID with every field, the increment under amount (issue 25)', async () => {
      // Another shape problem (the phone), found before admission.
      const withPhone = await expectRejected(cashPayout('55', { amount: '155.00', recipient: recipient('55', { phone: '0821234567' }) }), 'AMOUNT_INCREMENT_INVALID', 'amount');
      expect(withPhone.amount).toEqual([expect.stringContaining('multiple of 10.00')]);
      expect(withPhone['recipient.phone']).toEqual([expect.any(String)]);
      // Another problem only admission sees (above the method's maximum): both messages under amount.
      const aboveMaximum = await expectRejected(cashPayout('55', { amount: '3005.00' }), 'AMOUNT_INCREMENT_INVALID', 'amount');
      expect(aboveMaximum.amount).toEqual(expect.arrayContaining([expect.stringContaining('from 10.00 to 3000.00'), expect.stringContaining('multiple of 10.00')]));
      // The same in a batch: each item's problems under its own path.
      const batch = await stack.gateway
        .http()
        .post('/api/v1/batches')
        .set(bearer(vendor.token))
        .send({ reference: 'increment-batch', payouts: [cashPayout('55', { amount: '155.00' }), cashPayout('55', { recipient: recipient('55', { phone: 'x' }) })] })
        .expect(422);
      expect(batch.body.code).toBe('AMOUNT_INCREMENT_INVALID');
      expect(batch.body.errors['payouts.0.amount']).toEqual([expect.stringContaining('multiple of 10.00')]);
      expect(batch.body.errors['payouts.1.recipient.phone']).toEqual([expect.any(String)]);
      // Without an increment problem, other problems stay VALIDATION_FAILED.
      await expectRejected(cashPayout('55', { amount: '150.00', recipient: recipient('55', { phone: '0821234567' }) }), 'VALIDATION_FAILED', 'recipient.phone');
      // Alone it has its own code, in a batch too.
      const alone = await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: 'increment-batch-2', payouts: [cashPayout('55', { amount: '155.00' })] }).expect(422);
      expect(alone.body).toMatchObject({ code: 'AMOUNT_INCREMENT_INVALID', errors: { 'payouts.0.amount': [expect.stringContaining('multiple of 10.00')] } });
    });

    it('refuses a currency other than ZAR', async () => {
      await expectRejected(cashPayout('55', { currency: 'USD' }), 'VALIDATION_FAILED', 'currency');
    });
  });

  describe('method (rule 5)', () => {
    it('refuses an unknown method', async () => {
      await expectRejected(cashPayout('55', { method: 'paypal' }), 'VALIDATION_FAILED', 'method');
    });
  });

  describe('recipient identity (rule 6)', () => {
    it.each([
      ['a wrong checksum', rsaIdNumber().slice(0, 12) + String((Number(rsaIdNumber()[12]) + 1) % 10)],
      ['12 digits', rsaIdNumber().slice(0, 12)],
      ['letters', '80010150090AB'],
      ['an impossible birth date (30 February)', rsaIdNumber('800230')],
      ['month 13', rsaIdNumber('801301')],
      ['a citizenship digit other than 0, 1, 2', rsaIdNumber('800101', '5009', '7')],
    ])('refuses an RSAID number with %s', async (_label, idNumber) => {
      await expectRejected(cashPayout('55', { recipient: recipient('55', { id_number: idNumber }) }), 'VALIDATION_FAILED', 'recipient.id_number');
    });

    it('accepts a refugee (citizenship 2) and a leap day', async () => {
      // Validation passes, so the request reaches admission; the dedicated insufficient balance proves it got that far.
      const response = await post(cashPayout('55', { amount: '3000.00', recipient: recipient('55', { id_number: rsaIdNumber('000229', '5009', '2') }) })).expect(409);
      expect(response.body.code).toBe('INSUFFICIENT_FUNDS');
    });

    it('checks Passport numbers by their own rule', async () => {
      await expectRejected(cashPayout('55', { recipient: recipient('55', { id_type: 'Passport', id_number: 'A1' }) }), 'VALIDATION_FAILED', 'recipient.id_number');
    });

    it('refuses an unknown id_type', async () => {
      await expectRejected(cashPayout('55', { recipient: recipient('55', { id_type: 'DriversLicence' }) }), 'VALIDATION_FAILED', 'recipient.id_type');
    });

    it.each([['ZZ'], ['za'], ['ZAF'], ['']])('refuses country_of_issue and nationality %j (ISO 3166 alpha-2)', async (code) => {
      const errors = await expectRejected(cashPayout('55', { recipient: recipient('55', { country_of_issue: code, nationality: code }) }), 'VALIDATION_FAILED', 'recipient.country_of_issue');
      expect(errors['recipient.nationality']).toBeDefined();
    });

    it('refuses a missing recipient and missing names', async () => {
      const { recipient: _omitted, ...body } = cashPayout();
      await expectRejected(body, 'VALIDATION_FAILED', 'recipient');
      const { first_name: _first, ...nameless } = recipient();
      await expectRejected(cashPayout('55', { recipient: nameless }), 'VALIDATION_FAILED', 'recipient.first_name');
    });
  });

  describe('phone (rule 7)', () => {
    it.each([['0821234567'], ['2782123456'], ['278212345678'], ['+27821234567'], ['28821234567']])('refuses %j', async (phone) => {
      await expectRejected(cashPayout('55', { recipient: recipient('55', { phone }) }), 'VALIDATION_FAILED', 'recipient.phone');
    });
  });

  describe('date of birth (rule 8)', () => {
    it.each([['1980-02-30'], ['01/01/1980'], ['2999-01-01']])('refuses %j', async (date_of_birth) => {
      await expectRejected(cashPayout('55', { recipient: recipient('55', { date_of_birth }) }), 'VALIDATION_FAILED', 'recipient.date_of_birth');
    });

    it('refuses a date of birth that contradicts the RSA ID number', async () => {
      const errors = await expectRejected(cashPayout('55', { recipient: recipient('55', { date_of_birth: '1981-01-01' }) }), 'VALIDATION_FAILED', 'recipient.date_of_birth');
      expect(errors['recipient.date_of_birth'][0]).toContain('does not match');
    });
  });

  describe('bank account (rule 9)', () => {
    it('requires bank_account for rtc_eft', async () => {
      await expectRejected(rtcPayout('55', { recipient: recipient() }), 'VALIDATION_FAILED', 'recipient.bank_account');
    });

    it.each([
      ['account_number', { ...bankAccount(), account_number: '12ab' }],
      ['branch_code', { ...bankAccount(), branch_code: '25065' }],
      ['bank_name', { ...bankAccount(), bank_name: '' }],
    ])('checks bank_account.%s', async (field, account) => {
      await expectRejected(rtcPayout('55', { recipient: recipient('55', { bank_account: account }) }), 'VALIDATION_FAILED', `recipient.bank_account.${field}`);
    });
  });

  describe('metadata (rule 10)', () => {
    it.each([
      ['a nested object', { order: { id: 1 } }],
      ['an array value', { tags: ['a'] }],
      ['an array', ['a']],
      ['a string', 'order-1'],
    ])('refuses %s', async (_label, metadata) => {
      await expectRejected(cashPayout('55', { metadata }), 'VALIDATION_FAILED', 'metadata');
    });

    it('refuses more than 20 keys', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
      await expectRejected(cashPayout('55', { metadata }), 'VALIDATION_FAILED', 'metadata');
    });
  });

  describe('shape', () => {
    it('refuses unknown fields at every level', async () => {
      const errors = await expectRejected(
        { ...cashPayout(), callback_url: 'https://x', recipient: recipient('55', { nickname: 'T' }) },
        'VALIDATION_FAILED',
        'callback_url',
      );
      expect(errors['recipient.nickname']).toBeDefined();
    });

    it('reports every problem of a request at once', async () => {
      const errors = await expectRejected(
        { reference: '!', amount: '1', currency: 'EUR', method: 'x', recipient: { phone: '1' } },
        'VALIDATION_FAILED',
        'reference',
      );
      expect(Object.keys(errors)).toEqual(expect.arrayContaining(['amount', 'currency', 'method', 'recipient.phone', 'recipient.surname', 'recipient.id_number']));
    });

    it('answers malformed JSON with VALIDATION_FAILED', async () => {
      const response = await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).set('Content-Type', 'application/json').send('{"reference":').expect(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('methods, funds and access', () => {
    it('answers METHOD_UNAVAILABLE for a method not enabled for the vendor', async () => {
      const narrow = await stack.vendor({ fundCents: 0n });
      await stack.gateway.app.get((await import('#payout')).PayoutMethodsService).configure(narrow.vendor.id, { disable: ['voucher_type_4'] });
      const response = await stack.gateway.http().post('/api/v1/payouts').set(bearer(narrow.token)).send(voucherPayout('55', { method: 'voucher_type_4' })).expect(422);
      expect(response.body).toMatchObject({ code: 'METHOD_UNAVAILABLE', message: FIXED_MESSAGES.METHOD_UNAVAILABLE, errors: { method: [expect.any(String)] } });
    });

    it('answers INSUFFICIENT_FUNDS (409) when available does not cover amount plus fee', async () => {
      // 1000.00 available; 1000.00 + 5.00 fee does not fit.
      const response = await post(cashPayout('55', { amount: '1000.00' })).expect(409);
      expect(response.body).toEqual({ success: false, code: 'INSUFFICIENT_FUNDS', message: FIXED_MESSAGES.INSUFFICIENT_FUNDS, errors: {} });
    });

    it('needs payouts:write', async () => {
      const readOnly = await vendor.issue(['payouts:read']);
      await stack.gateway.http().post('/api/v1/payouts').set(bearer(readOnly.token)).send(cashPayout()).expect(403);
      await stack.gateway.http().post('/api/v1/payouts').send(cashPayout()).expect(401);
    });
  });
});
