import type { InvariantReport } from './invariant-report.js';
import { countExamined, inScope, type InvariantQuery } from './invariant-query.js';

/**
 * Webhook invariants (docs/INTEGRATION.md, Webhooks):
 * - every status move a vendor is told about has its event, because both are written in one
 *   transaction. Only moves since the first event ever written count: moves made before webhooks
 *   were deployed have none, by design.
 * - no delivery is marked delivered without an attempt on record that got a 2xx.
 */
export async function checkWebhooks(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const missing = await query(
    `WITH since AS (SELECT min(created_at) AS at FROM webhook_events),
     expected AS (
       SELECT t.vendor_id, e.transaction_id AS resource_id, 'transaction.' || e.to_status AS type, e.created_at
         FROM purchase_transaction_events e JOIN purchase_transactions t ON t.id = e.transaction_id
        WHERE e.to_status IN ('completed', 'failed', 'reversed', 'review') AND ${inScope('t.vendor_id')}
       UNION ALL
       SELECT p.vendor_id, p.id, 'payout.paid', p.paid_at FROM payouts p WHERE p.status IN ('paid', 'reversed') AND p.paid_at IS NOT NULL AND ${inScope('p.vendor_id')}
       UNION ALL
       SELECT p.vendor_id, p.id, 'payout.failed', p.failed_at FROM payouts p WHERE p.status = 'failed' AND ${inScope('p.vendor_id')}
       UNION ALL
       SELECT p.vendor_id, p.id, 'payout.reversed', p.reversed_at FROM payouts p WHERE p.status = 'reversed' AND ${inScope('p.vendor_id')})
     SELECT x.vendor_id, x.resource_id, x.type, count(*) OVER () AS examined
       FROM expected x, since
      WHERE since.at IS NOT NULL AND x.created_at > since.at
        AND NOT EXISTS (SELECT 1 FROM webhook_events w WHERE w.resource_id = x.resource_id AND w.type = x.type)`,
    [vendors],
  );
  report.examined.webhookEventPerMove = await countExamined(query, vendors, `FROM webhook_events WHERE ${inScope('vendor_id')}`);
  for (const row of missing) {
    report.violations.push({ invariant: 'webhookEventPerMove', subject: String(row.resource_id), details: { type: row.type, vendor_id: row.vendor_id } });
  }

  const unproven = await query(
    `SELECT d.id, e.vendor_id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.status = 'delivered' AND ${inScope('e.vendor_id')}
        AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id AND a.http_status BETWEEN 200 AND 299)`,
    [vendors],
  );
  report.examined.webhookDeliveredWith2xx = await countExamined(
    query,
    vendors,
    `FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.status = 'delivered' AND ${inScope('e.vendor_id')}`,
  );
  for (const row of unproven) report.violations.push({ invariant: 'webhookDeliveredWith2xx', subject: String(row.id), details: { vendor_id: row.vendor_id } });
}
