import { loadConfig } from '#config';
import type { PayoutProviderClient } from '#providers';
import type { StoredRecipient } from '../model/payout-request.js';
import { PayoutRails } from './payout-rails.js';

const recipient: StoredRecipient = {
  first_name: 'Thandi',
  middle_name: null,
  surname: 'Mokoena',
  phone: '27821234567',
  id_type: 'RSAID',
  id_number: '8001015009087',
  country_of_issue: 'ZA',
  nationality: 'ZA',
  email: 'thandi@example.com',
  date_of_birth: '1980-01-01',
  bank_account: { bank_name: 'Bank C', account_number: '6200123455', account_name: 'T Mokoena', branch_code: '250655' },
};

function railsRecording() {
  const calls: Array<[string, unknown]> = [];
  const record = (name: string) => async (...args: unknown[]) => {
    calls.push([name, args.length === 1 ? args[0] : args]);
    return {} as never;
  };
  const client = { submitCashSend: record('cash'), submitRtcEft: record('rtc'), submitVoucher: record('voucher') } as unknown as PayoutProviderClient;
  return { rails: new PayoutRails(client, loadConfig({ APP_ENV: 'test' }, { VOUCHER_ACCOUNT_ALIAS: 'acct-alias' })), calls };
}

const submission = (method: 'bank_b_cardless' | 'rtc_eft' | 'voucher_type_3') => ({ method, merchantReference: 'GW_PO_ABC', amount: '100.00', recipient, vendorSlug: 'acme-1a2b3c' });

describe('PayoutRails', () => {
  it('sends a voucher only the merchant reference, amount, product code, vendor slug and account alias', async () => {
    const { rails, calls } = railsRecording();
    await rails.submit(submission('voucher_type_3'));
    expect(calls).toEqual([['voucher', { merchantReference: 'GW_PO_ABC', amount: '100.00', productCode: '1652', vendorSlug: 'acme-1a2b3c', accountAlias: 'acct-alias' }]]);
  });

  it('sends a cash rail the recipient name, identity and phone, never the date of birth or email', async () => {
    const { rails, calls } = railsRecording();
    await rails.submit(submission('bank_b_cardless'));
    const [name, args] = calls[0] as [string, [string, Record<string, unknown>]];
    expect(name).toBe('cash');
    expect(args[0]).toBe('bank_b_cardless');
    expect(args[1]).toEqual({
      merchantReference: 'GW_PO_ABC',
      amount: '100.00',
      phone: '27821234567',
      recipient: { firstName: 'Thandi', middleName: null, surname: 'Mokoena', idType: 'RSAID', idNumber: '8001015009087', countryOfIssue: 'ZA', nationality: 'ZA' },
    });
    expect(JSON.stringify(calls)).not.toMatch(/1980-01-01|example\.com/);
  });

  it('sends rtc_eft the bank account with the merchant reference as narration', async () => {
    const { rails, calls } = railsRecording();
    await rails.submit(submission('rtc_eft'));
    expect(calls).toEqual([
      ['rtc', { merchantReference: 'GW_PO_ABC', amount: '100.00', bankAccount: { bankName: 'Bank C', accountNumber: '6200123455', accountName: 'T Mokoena', branchCode: '250655' }, narration: 'GW_PO_ABC' }],
    ]);
  });
});
