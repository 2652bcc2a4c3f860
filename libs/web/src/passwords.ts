import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { ValidationFailedError } from '#common';

/** Algorithm.Argon2id: the package declares a const enum, which isolated modules cannot read at run time. */
const ARGON2ID = 2 as Algorithm;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** Passwords too common to allow whatever their length; a short list, the length rule does most of the work. */
const COMMON = new Set(['password1234', '123456789012', 'qwertyuiopas', 'letmein12345', 'passwordpassword', 'changeme1234', 'administrator']);

/**
 * The password policy (NIST SP 800-63B style): length over composition rules, no common
 * passwords, nothing built from the email. Returns the problems, empty when acceptable.
 */
export function passwordProblems(password: string, email: string): string[] {
  const problems: string[] = [];
  if ([...password].length < PASSWORD_MIN_LENGTH) problems.push(`Use at least ${PASSWORD_MIN_LENGTH} characters.`);
  if ([...password].length > PASSWORD_MAX_LENGTH) problems.push(`Use at most ${PASSWORD_MAX_LENGTH} characters.`);
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || /^(.)\1+$/.test(password)) problems.push('This password is too easy to guess.');
  const local = email.toLowerCase().split('@')[0] ?? '';
  if (local.length >= 4 && lower.includes(local)) problems.push('Do not use your email address in the password.');
  return problems;
}

/** argon2id with the library's defaults (OWASP's 19 MiB, 2 iterations). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

/** The hash of a new password that meets the policy; a ValidationFailedError on `password` when it does not. */
export async function newPasswordHash(password: string, email: string): Promise<string> {
  const problems = passwordProblems(password, email);
  if (problems.length > 0) throw new ValidationFailedError({ password: problems });
  return hashPassword(password);
}

export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/**
 * A fixed hash verified when the email is unknown, so a sign-in for a missing account costs
 * the same time as one for an existing account and does not reveal which emails exist.
 */
export const DUMMY_PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$U+Lg5Q45za3Rfv18QGmSiw$nSCKVTczjwVjdaUjXc54YFI7+taUJz9JE9LeATzoyCk';
