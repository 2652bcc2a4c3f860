import { checkInvariants } from '#invariants';
import { verifySignature } from '#webhooks';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { bearer } from '../support/vendors.js';
import { FAST_WEBHOOKS, startReceiver, type Receipt, type WebhookReceiver } from './webhook-receiver.js';

/** Payout webhooks: payout.paid, .failed, .reversed and batch.completed, and a receiver that is down for a while. */
describe('payout webhooks', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startPayoutStack({ config: FAST_WEBHOOKS });
    vendor = await stack.vendor();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    // This file's delivery jobs die with it: later stacks (other test files) must not relay them to a closed receiver.
    await stack?.dataSource.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`).catch(() => undefined);
    await receiver?.close();
    await stack?.close();
  });

  const api = () => stack.gateway.http();
  const register = (events: string[]) => api().post('/api/v1/webhook-endpoints').set(bearer(vendor.token)).send({ url: receiver.url, events });
  const find = (predicate: (receipt: Receipt) => boolean, timeoutMs = 30_000) =>
    eventually(async () => {
      const found = receiver.receipts.find(predicate);
      if (!found) throw new Error('not received yet');
      return found;
    }, timeoutMs);

  it('delivers payout.paid, payout.failed, payout.reversed and batch.completed, each verified, without a PIN', async () => {
    const created = await register(['payout.paid', 'payout.failed', 'payout.reversed', 'batch.completed']).expect(201);
    expect(created.body).toMatchObject({ success: true, data: { secret: expect.stringMatching(/^whsec_/) } });
    expect(created.body.message).toBeUndefined();
    const secret = created.body.data.secret as string;

    const paid = (await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55')).expect(200)).body.data;
    // A provider refusal answers PROVIDER_REJECTED (issue 25); the failed payout is read back.
    const refused = cashPayout('01');
    await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(refused).expect(422);
    const failed = (await api().get(`/api/v1/payouts/${refused.reference}`).set(bearer(vendor.token)).expect(200)).body.data;
    const reversed = (await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('03')).expect(200)).body.data;
    const batchReference = uniqueReference('hook-batch');
    const batch = (
      await api()
        .post('/api/v1/batches')
        .set(bearer(vendor.token))
        .send({ reference: batchReference, payouts: [cashPayout('55', { amount: '20.00' }), cashPayout('01', { amount: '20.00' })] })
        .expect(202)
    ).body.data;

    const receipts = [
      await find((receipt) => receipt.event.type === 'payout.paid' && receipt.event.data.id === paid.id),
      await find((receipt) => receipt.event.type === 'payout.failed' && receipt.event.data.id === failed.id),
      await find((receipt) => receipt.event.type === 'payout.reversed' && receipt.event.data.id === reversed.id),
      await find((receipt) => receipt.event.type === 'batch.completed' && receipt.event.data.id === batch.id),
    ];
    for (const receipt of receipts) {
      expect(verifySignature(String(receipt.headers['gateway-signature']), receipt.body, secret)).toBe(true);
      expect(receipt.body).not.toMatch(/"pin"\s*:\s*"/);
    }
    expect(receipts[0].event.data).toMatchObject({ status: 'paid', reference: paid.reference, delivery: null });
    expect(receipts[1].event.data).toMatchObject({ status: 'failed', status_reason: 'provider_rejected' });
    expect(receipts[3].event.data).toMatchObject({ reference: batchReference, status: 'completed_with_failures', item_count: 2 });
    // batch.completed exists once per batch, however many items finished last.
    const [{ count }] = await stack.dataSource.query(`SELECT count(*)::int AS count FROM webhook_events WHERE type = 'batch.completed' AND resource_id = $1`, [batch.id]);
    expect(count).toBe(1);
    // The reversed payout was paid first: both events, in that order.
    const types = (await stack.dataSource.query(`SELECT type FROM webhook_events WHERE resource_id = $1 ORDER BY created_at, id`, [reversed.id])).map((row: { type: string }) => row.type);
    expect(types).toEqual(['payout.paid', 'payout.reversed']);
    await api().delete(`/api/v1/webhook-endpoints/${created.body.data.id}`).set(bearer(vendor.token)).expect(200);
  }, 90_000);

  it('retries with backoff a receiver that fails for a while, and logs every attempt', async () => {
    const created = await register(['payout.paid']).expect(201);
    const endpointId = created.body.data.id as string;
    const payout = (await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55')).expect(200)).body.data;
    let failures = 0;
    receiver.respond = (_index, receipt) => (receipt.event.data.id === payout.id && failures++ < 3 ? 503 : 200);

    const delivered = await find((receipt) => receipt.event.data.id === payout.id && receipt.answered === 200);
    const attempts = receiver.receipts.filter((receipt) => receipt.event.data.id === payout.id);
    expect(attempts.map((receipt) => receipt.answered)).toEqual([503, 503, 503, 200]);
    // Same event, same bytes every time; a fresh signature timestamp per attempt.
    expect(new Set(attempts.map((receipt) => receipt.body)).size).toBe(1);
    expect(delivered.event.id).toBe(attempts[0].event.id);

    const log = await eventually(async () => {
      const response = await api().get(`/api/v1/webhook-endpoints/${endpointId}/deliveries`).set(bearer(vendor.token)).expect(200);
      const entry = response.body.data.items.find((item: { event_id: string }) => item.event_id === delivered.event.id);
      if (entry?.status !== 'delivered') throw new Error('not recorded yet');
      return entry;
    });
    expect(log).toMatchObject({ status: 'delivered', attempts: 4, last_http_status: 200, last_error: null, next_attempt_at: null });
    const rows: { attempt: number; http_status: number; attempted_at: Date }[] = await stack.dataSource.query(
      `SELECT attempt, http_status, attempted_at FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [log.id],
    );
    expect(rows.map((row) => [row.attempt, row.http_status])).toEqual([[1, 503], [2, 503], [3, 503], [4, 200]]);
    // Backoff: each wait at least the schedule's (200, 400, 800 ms with the test settings).
    const gaps = rows.slice(1).map((row, index) => new Date(row.attempted_at).getTime() - new Date(rows[index].attempted_at).getTime());
    expect(gaps[0]).toBeGreaterThanOrEqual(150);
    expect(gaps[1]).toBeGreaterThanOrEqual(350);
    expect(gaps[2]).toBeGreaterThanOrEqual(750);
    receiver.respond = () => 200;
  }, 90_000);

  it('gives up after the last attempt and marks the delivery failed, never delivered; the invariant checker catches either rule broken', async () => {
    const created = await register(['payout.failed']).expect(201);
    const endpointId = created.body.data.id as string;
    receiver.respond = (_index, receipt) => (receipt.event.type === 'payout.failed' ? 500 : 200);
    const refused = cashPayout('01');
    await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(refused).expect(422);
    const payout = (await api().get(`/api/v1/payouts/${refused.reference}`).set(bearer(vendor.token)).expect(200)).body.data;
    const entry = await eventually(async () => {
      const response = await api().get(`/api/v1/webhook-endpoints/${endpointId}/deliveries`).set(bearer(vendor.token)).expect(200);
      const found = response.body.data.items[0];
      if (found?.status !== 'failed') throw new Error('still retrying');
      return found;
    }, 60_000);
    expect(entry).toMatchObject({ status: 'failed', attempts: Number(FAST_WEBHOOKS.WEBHOOK_MAX_ATTEMPTS), last_http_status: 500, delivered_at: null });
    expect(receiver.receipts.filter((receipt) => receipt.event.data.id === payout.id)).toHaveLength(Number(FAST_WEBHOOKS.WEBHOOK_MAX_ATTEMPTS));
    receiver.respond = () => 200;

    // The invariant checker holds on what the suite wrote, and sees each webhook invariant broken.
    const webhookViolations = async () =>
      (await checkInvariants((sql, parameters) => stack.dataSource.query(sql, parameters), { vendorIds: [vendor.vendor.id] })).violations.filter((violation) =>
        violation.invariant.startsWith('webhook'),
      );
    expect(await webhookViolations()).toEqual([]);
    await stack.dataSource.query(`UPDATE webhook_deliveries SET status = 'delivered' WHERE id = $1`, [entry.id]);
    await stack.dataSource.query(`UPDATE webhook_events SET type = 'payout.paid' WHERE resource_id = $1 AND type = 'payout.failed'`, [payout.id]);
    expect(await webhookViolations()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ invariant: 'webhookDeliveredWith2xx', subject: entry.id }),
        expect.objectContaining({ invariant: 'webhookEventPerMove', subject: payout.id, details: expect.objectContaining({ type: 'payout.failed' }) }),
      ]),
    );
    await stack.dataSource.query(`UPDATE webhook_events SET type = 'payout.failed' WHERE resource_id = $1 AND type = 'payout.paid'`, [payout.id]);
    await stack.dataSource.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [entry.id]);
  }, 90_000);
});
