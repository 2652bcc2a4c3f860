import { CurrentVendor, RequireScopes } from '#auth';
import { webhookEndpointsController } from '#webhooks';
import { PAYOUT_ENVELOPE } from '../http/payout-envelope.js';

/**
 * Signed webhooks of the payout gateway (docs/INTEGRATION.md, Webhooks): payout.paid, .failed,
 * .reversed and batch.completed.
 */
export const WebhookEndpointsController = webhookEndpointsController({
  gateway: 'payout',
  envelope: PAYOUT_ENVELOPE,
  verifiedStateHint: 'GET /api/v1/payouts/{reference} (or /batches/{reference})',
  access: { require: (ability) => RequireScopes(ability), vendor: CurrentVendor },
});
