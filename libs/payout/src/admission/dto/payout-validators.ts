import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import type { ConstraintContext } from '#common';
import { formatCents, parseZarAmount2dp } from '#money';
import { isPayoutMethod, methodDefinition } from '../../model/payout-method-catalogue.js';
import { dateOfBirthProblems, metadataProblems, recipientIdNumberProblems } from '../../model/payout-field-rules.js';

/** class-validator decorators for the payout DTOs; the rules themselves are in payout-field-rules.ts. */
function ruleDecorator(name: string, problemsOf: (value: unknown, object: Record<string, unknown>) => string[], options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => problemsOf(value, args.object as Record<string, unknown>).length === 0,
        defaultMessage: (args?: ValidationArguments) => (args ? problemsOf(args.value, args.object as Record<string, unknown>).join('; ') : `${name} failed`),
      },
    });
}

/** RSAID: 13 digits, real birth date, citizenship digit and Luhn checksum; Passport: 6 to 20 letters or digits. */
export const IsRecipientIdNumber = (options?: ValidationOptions) =>
  ruleDecorator('isRecipientIdNumber', (value, object) => recipientIdNumberProblems(object.id_type, value), options);

export const IsDateOfBirth = (options?: ValidationOptions) =>
  ruleDecorator('isDateOfBirth', (value, object) => dateOfBirthProblems(value, object.id_type, object.id_number), options);

export const IsFlatMetadata = (options?: ValidationOptions) => ruleDecorator('isFlatMetadata', (value) => metadataProblems(value), options);

/**
 * A well-formed amount off its method's increment (R10 on cash rails). Checked with the request's
 * shape, so the problem is reported together with every other shape problem, under `amount`;
 * the answer's code is then AMOUNT_INCREMENT_INVALID (the contract's code for it), with every
 * field's messages in `errors`. When it is the only shape problem it is deferred to admission
 * (admitPayout), which checks it again with the vendor's limits and answers
 * AMOUNT_INCREMENT_INVALID too, with any limit problem beside it. The increment comes from the
 * catalogue (vendors tighten limits, never the increment).
 */
export const IsOnMethodIncrement = (options?: ValidationOptions) =>
  ruleDecorator('isOnMethodIncrement', (value, object) => incrementProblems(value, object.method), {
    ...options,
    context: { deferToDomain: true, code: 'AMOUNT_INCREMENT_INVALID' } satisfies ConstraintContext,
  });

function incrementProblems(amount: unknown, method: unknown): string[] {
  if (typeof amount !== 'string' || typeof method !== 'string' || !isPayoutMethod(method)) return [];
  let cents: bigint;
  try {
    cents = parseZarAmount2dp(amount);
  } catch {
    return [];
  }
  const { incrementCents } = methodDefinition(method);
  return cents % incrementCents === 0n ? [] : [`amount must be a multiple of ${formatCents(incrementCents)} for ${method}`];
}
