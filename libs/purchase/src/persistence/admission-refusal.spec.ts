import { QueryFailedError } from 'typeorm';
import { DomainError } from '#common';
import { ADMISSION_REFUSAL_ERROR_CODES, type AdmissionRefusalCode } from '../model/admission-refusals.js';
import { admissionError } from './admission-refusal.js';

/** The fields purchase_admit puts next to a code that needs them (migration 1763781500000). */
const DETAIL_FIELDS: Partial<Record<AdmissionRefusalCode, object>> = {
  IDEMPOTENCY_CONFLICT: { conflict: 'key' },
  PURCHASES_PAUSED: { scope: 'vendor' },
  TRANSACTION_MAXIMUM_EXCEEDED: { transaction_max_cents: '500000' },
  VELOCITY_LIMIT_EXCEEDED: { retry_after_seconds: 30 },
  DAILY_CAP_EXCEEDED: { remaining_cents: '1200' },
};

const refusal = (code: string) =>
  new QueryFailedError('SELECT purchase_admit(...)', [], Object.assign(new Error('purchase admission refused'), { code: 'ZA001', detail: JSON.stringify({ code, ...DETAIL_FIELDS[code as AdmissionRefusalCode] }) }));

describe('admission refusals', () => {
  it.each(Object.entries(ADMISSION_REFUSAL_ERROR_CODES))('answers the refusal %s with the declared error code %s', (code, errorCode) => {
    const error = admissionError(refusal(code));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(errorCode);
  });
});
