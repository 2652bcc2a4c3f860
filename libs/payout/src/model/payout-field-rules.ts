import { textRuleProblem } from '#common';
import { isValidRsaIdNumber } from './rsa-id-number.js';

/** Payout contract rule 1. */
export const PAYOUT_REFERENCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
/** Rule 3: a decimal string with exactly two places, no sign, no leading zeros. */
export const PAYOUT_AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,11})\.[0-9]{2}$/;
/** Rule 7: 27 and nine digits. */
export const PAYOUT_PHONE_PATTERN = /^27[0-9]{9}$/;
export const PASSPORT_NUMBER_PATTERN = /^[A-Za-z0-9]{6,20}$/;
export const BANK_ACCOUNT_NUMBER_PATTERN = /^[0-9]{6,16}$/;
/** The universal branch code: six digits, no bank id needed (rule 9). */
export const BRANCH_CODE_PATTERN = /^[0-9]{6}$/;

export const RECIPIENT_ID_TYPES = ['RSAID', 'Passport'] as const;

/** Metadata bounds, so a flat object cannot be used to store bulk data. */
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_STRING_LENGTH = 500;

/** YYYY-MM-DD that exists on the calendar. */
export function isRealIsoDate(value: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1900 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Problems with an id number given its type; empty when it is valid. */
export function recipientIdNumberProblems(idType: unknown, idNumber: unknown): string[] {
  if (typeof idNumber !== 'string') return ['id_number must be a string'];
  if (idType === 'RSAID') {
    if (!/^[0-9]{13}$/.test(idNumber)) return ['id_number must be 13 digits for id_type RSAID'];
    if (!isValidRsaIdNumber(idNumber)) return ['id_number is not a valid South African ID number (birth date, citizenship digit or checksum)'];
    return [];
  }
  if (idType === 'Passport') {
    return PASSPORT_NUMBER_PATTERN.test(idNumber) ? [] : ['id_number must be 6 to 20 letters or digits for id_type Passport'];
  }
  return [];
}

/** Problems with date_of_birth: a real past date, and for an RSA ID the date the number encodes. */
export function dateOfBirthProblems(dateOfBirth: unknown, idType: unknown, idNumber: unknown, today: Date = new Date()): string[] {
  if (dateOfBirth === undefined || dateOfBirth === null) return [];
  if (typeof dateOfBirth !== 'string' || !isRealIsoDate(dateOfBirth)) return ['date_of_birth must be a real date written YYYY-MM-DD'];
  if (dateOfBirth > today.toISOString().slice(0, 10)) return ['date_of_birth must not be in the future'];
  if (idType === 'RSAID' && typeof idNumber === 'string' && /^[0-9]{13}$/.test(idNumber)) {
    const encoded = `${dateOfBirth.slice(2, 4)}${dateOfBirth.slice(5, 7)}${dateOfBirth.slice(8, 10)}`;
    if (encoded !== idNumber.slice(0, 6)) return ['date_of_birth does not match the birth date in id_number'];
  }
  return [];
}

/** Problems with metadata: a flat object of string, number, boolean or null values. */
export function metadataProblems(metadata: unknown): string[] {
  if (metadata === undefined || metadata === null) return [];
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return ['metadata must be a flat object'];
  const entries = Object.entries(metadata as Record<string, unknown>);
  const problems: string[] = [];
  if (entries.length > METADATA_MAX_KEYS) problems.push(`metadata must have at most ${METADATA_MAX_KEYS} keys`);
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > METADATA_MAX_KEY_LENGTH) problems.push(`metadata keys must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`);
    const keyProblem = key.length > 0 ? textRuleProblem(key) : undefined;
    if (keyProblem !== undefined) problems.push(`metadata keys ${keyProblem}`);
    if (value === null || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) problems.push(`metadata.${key} must be a finite number`);
      continue;
    }
    if (typeof value === 'string') {
      if (value.length > METADATA_MAX_STRING_LENGTH) problems.push(`metadata.${key} must be at most ${METADATA_MAX_STRING_LENGTH} characters`);
      // The same text rule as every other free-text field (recipient names included).
      const problem = value.length > 0 ? textRuleProblem(value) : undefined;
      if (problem !== undefined) problems.push(`metadata.${key} ${problem}`);
      continue;
    }
    problems.push(`metadata.${key} must be a string, number, boolean or null (metadata is flat)`);
  }
  return problems;
}
