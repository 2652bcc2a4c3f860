/** The events each gateway emits; an endpoint registered on a gateway subscribes to that gateway's events only. */
export const PURCHASE_WEBHOOK_EVENTS = ['transaction.completed', 'transaction.failed', 'transaction.reversed', 'transaction.review'] as const;
export const PAYOUT_WEBHOOK_EVENTS = ['payout.paid', 'payout.failed', 'payout.reversed', 'batch.completed'] as const;

export type PurchaseWebhookEvent = (typeof PURCHASE_WEBHOOK_EVENTS)[number];
export type PayoutWebhookEvent = (typeof PAYOUT_WEBHOOK_EVENTS)[number];
export type WebhookEventType = PurchaseWebhookEvent | PayoutWebhookEvent;
export type WebhookGateway = 'purchase' | 'payout';

export function eventsOf(gateway: WebhookGateway): readonly WebhookEventType[] {
  return gateway === 'purchase' ? PURCHASE_WEBHOOK_EVENTS : PAYOUT_WEBHOOK_EVENTS;
}
