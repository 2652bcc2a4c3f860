import type { HttpAppOptions } from '#common';

export const PAYOUT_HTTP_OPTIONS: HttpAppOptions = {
  // Payout paths carry /api/v1 themselves in the contract; the prefix keeps health and docs at the root.
  globalPrefix: 'api/v1',
  // A 500-item batch is roughly 400 KB of JSON.
  bodyLimit: '1mb',
  openApi: {
    title: 'Payout gateway',
    description:
      'Vendor payout API on a prefunded account: account, methods, single payouts, batches, delivery and SMS resend. ' +
      'Every operation needs a bearer token holding the scope listed in `x-required-abilities`. Errors use ' +
      '`{success: false, code, message, errors: {"field.path": [...]}}`.',
  },
};
