import { storedRecipientOf } from './payout-request.js';
import { maskedRecipientOf } from './recipient-mask.js';

const base = {
  first_name: 'Thandiwe',
  surname: 'Mokoena',
  phone: '27821234555',
  id_type: 'RSAID',
  id_number: '8001015009087',
  country_of_issue: 'ZA',
  nationality: 'ZA',
};

describe('maskedRecipientOf', () => {
  it('keeps each name\'s first letter and the last three digits of the phone, and leaves out the identity number and birth date', () => {
    const masked = maskedRecipientOf(storedRecipientOf({ ...base, middle_name: 'Lerato', date_of_birth: '1980-01-01' }));
    expect(masked).toEqual({ name: 'T******* L***** M******', phone: '********555', email: null, id_type: 'RSAID', bank_account: null });
    expect(JSON.stringify(masked)).not.toMatch(/8001015009087|1980-01-01|Thandiwe|Mokoena/);
  });

  it('shows the email\'s domain and the account\'s last four digits, counting characters rather than UTF-16 units', () => {
    const masked = maskedRecipientOf(
      storedRecipientOf({
        ...base,
        first_name: 'Zoë',
        email: 'zoe.m@example.com',
        bank_account: { bank_name: 'Bank C', account_number: '6200123455', account_name: 'Z Mokoena', branch_code: '250655' },
      }),
    );
    expect(masked.name).toBe('Z** M******');
    expect(masked.email).toBe('z****@example.com');
    expect(masked.bank_account).toEqual({ bank_name: 'Bank C', account_number: '******3455', account_name: 'Z M******' });
  });

  it('never shows a short value whole: at least two characters stay hidden', () => {
    const masked = maskedRecipientOf(storedRecipientOf({ ...base, phone: '1234', bank_account: { bank_name: 'B', account_number: '12345', account_name: 'A', branch_code: '1' } }));
    expect(masked.phone).toBe('**34');
    expect(masked.bank_account!.account_number).toBe('**345');
  });
});
