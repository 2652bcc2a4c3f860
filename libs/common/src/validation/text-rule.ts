import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

/**
 * The one rule for free text a vendor sends (recipient names, bank and account names, metadata
 * string values and keys, recipient-group values, webhook descriptions, ...): what a person reads
 * must be what is stored. Refused:
 * - control characters: C0 (U+0000-U+001F, including NUL, tab and newlines), DEL and C1
 *   (U+007F-U+009F), and the line and paragraph separators U+2028 / U+2029;
 * - unpaired surrogates (a string that is not well-formed UTF-16 cannot be stored or encoded);
 * - invisible format characters (Unicode category Cf: zero-width space U+200B, bidirectional
 *   overrides U+202A-U+202E and isolates U+2066-U+2069, word joiner U+2060, BOM U+FEFF, soft
 *   hyphen U+00AD, ...), which make two different values look the same. The zero-width joiner
 *   and non-joiner (U+200D, U+200C) stay allowed between two visible characters, where scripts
 *   and emoji sequences need them;
 * - a value that is only whitespace (the empty string is left to each field's length rule).
 */
/** A high surrogate not followed by a low one, or a low one not preceded by a high one (no `u` flag: code units). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
/** A format character other than a joiner, or a joiner without a visible character on each side. */
const FORMAT =
  /(?![\u200c\u200d])\p{Cf}|(?<![\p{L}\p{M}\p{N}\p{P}\p{S}])[\u200c\u200d]|[\u200c\u200d](?![\p{L}\p{M}\p{N}\p{P}\p{S}])/u;
const WHITESPACE_ONLY = /^\p{White_Space}+$/u;

/** Why `value` breaks the text rule (a phrase to follow the field's name), or undefined when it does not. */
export function textRuleProblem(value: string): string | undefined {
  if (UNPAIRED_SURROGATE.test(value)) return 'must not contain unpaired surrogates';
  if (CONTROL.test(value)) return 'must not contain control characters (such as NUL, tab or newline)';
  if (FORMAT.test(value)) return 'must not contain invisible formatting characters (such as zero-width spaces or direction overrides)';
  if (WHITESPACE_ONLY.test(value)) return 'must not be only whitespace';
  return undefined;
}

/** The text rule for one string (non-strings are left to the field's type rule). */
export function isCleanText(value: unknown): boolean {
  return typeof value !== 'string' || textRuleProblem(value) === undefined;
}

/**
 * class-validator decorator applying the text rule to a string field (or, with `each: true`, to
 * every string of an array). Use it on every free-text field; non-strings pass (their type
 * rule reports them).
 */
export function IsCleanText(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isCleanText',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => isCleanText(value),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'text'} ${typeof args?.value === 'string' ? (textRuleProblem(args.value) ?? 'is not acceptable text') : 'is not acceptable text'}`,
      },
    });
}
