import { CurrentVendor, RequireAbilities } from '#auth';
import { webhookEndpointsController } from '#webhooks';
import { PURCHASE_ENVELOPE } from '../http/purchase-envelope.js';

/**
 * Signed webhooks of the purchase gateway (docs/INTEGRATION.md, Webhooks): transaction.completed,
 * .failed, .reversed and .review.
 */
export const WebhookEndpointsController = webhookEndpointsController({
  gateway: 'purchase',
  envelope: PURCHASE_ENVELOPE,
  verifiedStateHint: 'GET /transactions/{id}',
  access: { require: (ability) => RequireAbilities(ability), vendor: CurrentVendor },
});
