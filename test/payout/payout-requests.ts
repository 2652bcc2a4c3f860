import { randomUUID } from 'node:crypto';

/** Builders for payout requests; the test value suffix picks the sandbox outcome (README, "Sandbox test values"). */

/** An RSA ID number with a valid Luhn check digit for the given birth date (YYMMDD). */
export function rsaIdNumber(yymmdd = '800101', sequence = '5009', citizenship = '0'): string {
  const body = `${yymmdd}${sequence}${citizenship}8`;
  for (let check = 0; check <= 9; check++) {
    const candidate = `${body}${check}`;
    if (luhn(candidate)) return candidate;
  }
  throw new Error('unreachable');
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

let counter = 0;
export const uniqueReference = (label = 'ref') => `${label}-${Date.now().toString(36)}-${(++counter).toString(36)}-${randomUUID().slice(0, 6)}`;

export type TestValue = '00' | '01' | '02' | '03' | '04' | '05' | '06' | '07' | '55';

export function recipient(phoneSuffix: TestValue = '55', extra: Record<string, unknown> = {}) {
  return {
    first_name: 'Thandi',
    surname: 'Mokoena',
    phone: `278212345${phoneSuffix}`,
    id_type: 'RSAID',
    id_number: rsaIdNumber(),
    country_of_issue: 'ZA',
    nationality: 'ZA',
    ...extra,
  };
}

export function bankAccount(accountSuffix: TestValue = '55') {
  return { bank_name: 'Bank C', account_number: `62001234${accountSuffix}`, account_name: 'T Mokoena', branch_code: '250655' };
}

export function cashPayout(testValue: TestValue = '55', overrides: Record<string, unknown> = {}) {
  return {
    reference: uniqueReference('cash'),
    amount: '200.00',
    currency: 'ZAR',
    method: 'bank_a_instant_money',
    recipient: recipient(testValue),
    ...overrides,
  };
}

export function rtcPayout(testValue: TestValue = '55', overrides: Record<string, unknown> = {}) {
  return {
    reference: uniqueReference('rtc'),
    amount: '1234.56',
    currency: 'ZAR',
    method: 'rtc_eft',
    recipient: recipient('55', { bank_account: bankAccount(testValue) }),
    ...overrides,
  };
}

/** Vouchers have no phone or account at the provider, so the cents of the amount pick the outcome. */
export function voucherPayout(testValue: TestValue = '55', overrides: Record<string, unknown> = {}) {
  return {
    reference: uniqueReference('voucher'),
    amount: `50.${testValue}`,
    currency: 'ZAR',
    method: 'voucher_type_1',
    recipient: recipient('55', { email: 'thandi@example.com', date_of_birth: '1980-01-01' }),
    ...overrides,
  };
}

export const FIXED_MESSAGES = {
  VALIDATION_FAILED: 'The request is invalid. Correct the reported fields.',
  AMOUNT_INCREMENT_INVALID: 'The amount is not a multiple of the method increment.',
  REFERENCE_CONFLICT: 'This reference was already used with different details.',
  INSUFFICIENT_FUNDS: 'The account balance does not cover the amount plus fee.',
  METHOD_UNAVAILABLE: 'This method is not available for this operation.',
  RATE_LIMITED: 'Too many requests. Retry after the indicated time.',
  API_RATE_LIMITED: 'Too many API requests for this token. Slow down and retry after the indicated time.',
  PROVIDER_REJECTED: 'The provider rejected the payout.',
  NOT_FOUND: 'The requested resource was not found.',
  PAYOUT_NOT_PAID: 'The payout is not paid, so this is not available yet.',
} as const;
