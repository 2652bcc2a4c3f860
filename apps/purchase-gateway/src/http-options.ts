import type { HttpAppOptions } from '#common';

export const PURCHASE_HTTP_OPTIONS: HttpAppOptions = {
  globalPrefix: 'api/v1',
  bodyLimit: '64kb',
  openApi: {
    title: 'Purchase gateway',
    description:
      'Vendor purchase API: catalogue, lookups, quotes, idempotent purchases, transaction reads, fulfilment, limits and reports. ' +
      'Every operation needs a bearer token holding the ability listed in `x-required-abilities`. Errors use ' +
      '`{success: false, message: CODE, error: {code, ...}}`.',
  },
};
