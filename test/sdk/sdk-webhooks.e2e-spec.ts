import { constructEvent, PayoutClient, WebhookSignatureError, type PayoutRequest, type PayoutWebhookEvent } from '../../packages/sdk/src/index.js';
import { cashPayout } from '../payout/payout-requests.js';
import { eventually, startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { FAST_WEBHOOKS, startReceiver, type Receipt, type WebhookReceiver } from '../webhooks/webhook-receiver.js';

/**
 * The SDK's webhook helpers against real deliveries: endpoints managed through the SDK, events
 * delivered by the real worker to a local receiver, each verified with `constructEvent`, before
 * and during a secret rotation.
 */
describe('SDK webhooks against real deliveries', () => {
  let stack: PayoutStack;
  let receiver: WebhookReceiver;
  let payout: PayoutClient;

  beforeAll(async () => {
    stack = await startPayoutStack({ config: FAST_WEBHOOKS, listen: true });
    const vendor = await stack.vendor();
    receiver = await startReceiver();
    payout = new PayoutClient({ baseUrl: stack.gateway.url!, token: vendor.token });
  }, 120_000);

  afterAll(async () => {
    // This file's delivery jobs die with it: later stacks must not relay them to a closed receiver.
    await stack?.dataSource.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`).catch(() => undefined);
    await receiver?.close();
    await stack?.close();
  });

  const delivered = (payoutId: string) =>
    eventually(async () => {
      const found = receiver.receipts.find((receipt: Receipt) => receipt.event.type === 'payout.paid' && receipt.event.data.id === payoutId);
      if (!found) throw new Error('not received yet');
      return found;
    });
  const refusal = (fn: () => unknown) => {
    try {
      fn();
      return 'accepted';
    } catch (error) {
      return error instanceof WebhookSignatureError ? error.reason : String(error);
    }
  };

  it('verifies real deliveries with constructEvent, refuses tampered ones, and accepts both secrets during a rotation', async () => {
    const endpoint = await payout.createWebhookEndpoint({ url: receiver.url, events: ['payout.paid'] });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const { payout: paid } = await payout.createPayout(cashPayout('55') as PayoutRequest);
    const receipt = await delivered(paid.id);
    const event = constructEvent<PayoutWebhookEvent>(receipt.body, receipt.headers['gateway-signature'], endpoint.secret);
    expect(event.type).toBe('payout.paid');
    if (event.type !== 'payout.paid') throw new Error('unexpected event');
    expect(event.data).toMatchObject({ id: paid.id, reference: paid.reference, status: 'paid' });
    expect(event.id).toBe(receipt.headers['gateway-event-id']);
    expect(refusal(() => constructEvent(receipt.body.replace('"paid"', '"failed"'), receipt.headers['gateway-signature'], endpoint.secret))).toBe('no_matching_signature');
    expect(refusal(() => constructEvent(receipt.body, receipt.headers['gateway-signature'], endpoint.secret, { now: Date.now() + 301_000 }))).toBe('timestamp_outside_tolerance');

    // Rotation with an overlap: the gateway signs with both secrets; either one verifies.
    const rotated = await payout.rotateWebhookSecret(endpoint.id, { overlap_seconds: 3600 });
    expect(rotated.secret).not.toBe(endpoint.secret);
    const { payout: second } = await payout.createPayout(cashPayout('55') as PayoutRequest);
    const during = await delivered(second.id);
    expect(String(during.headers['gateway-signature']).match(/v1=/g)).toHaveLength(2);
    expect(constructEvent(during.body, during.headers['gateway-signature'], endpoint.secret).data).toMatchObject({ id: second.id });
    expect(constructEvent(during.body, during.headers['gateway-signature'], rotated.secret).data).toMatchObject({ id: second.id });
    expect(constructEvent(during.body, during.headers['gateway-signature'], [rotated.secret, endpoint.secret]).id).toBe(during.event.id);

    // The delivery log, walked by the SDK's paginator, shows both deliveries delivered.
    const log = await eventually(async () => {
      const entries = await payout.listWebhookDeliveries(endpoint.id, { per_page: 1 }).toArray();
      if (entries.filter((entry) => entry.status === 'delivered').length < 2) throw new Error('not logged yet');
      return entries;
    });
    expect(log.map((entry) => entry.event_id)).toEqual(expect.arrayContaining([event.id, during.event.id]));
    const redelivery = await payout.redeliverWebhookEvent(endpoint.id, event.id);
    expect(redelivery).toMatchObject({ event_id: event.id });
  }, 90_000);
});
