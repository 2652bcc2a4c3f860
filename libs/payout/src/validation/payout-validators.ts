import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { dateOfBirthProblems, metadataProblems, recipientIdNumberProblems } from './payout-field-rules.js';

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
