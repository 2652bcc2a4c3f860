/**
 * The two services answer in different envelopes (see the contracts):
 * - purchase: `{success, message: "OK", data}` / `{success: false, message: CODE, error: {code, ...}}`
 * - payout:   `{success, data}` / `{success: false, code, message, errors: {"field.path": [...]}}`
 */
export type EnvelopeStyle = 'purchase' | 'payout';

export const ENVELOPE_STYLE = Symbol('ENVELOPE_STYLE');
export const ERROR_CATALOGUE = Symbol('ERROR_CATALOGUE');
