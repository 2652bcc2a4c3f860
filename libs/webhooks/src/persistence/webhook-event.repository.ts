import type { EntityManager } from 'typeorm';
import { jobSpec, outboxBindValues, outboxRowsFrom } from '#queues';
import type { WebhookEventType } from '../webhook-event-types.js';

export interface NewWebhookEvent {
  vendorId: string;
  type: WebhookEventType;
  resourceId: string;
  /** The resource as the vendor API returns it; callers leave out PINs and delivery secrets. */
  data: unknown;
  /** For events that must exist once per resource (batch.completed): a second insert is ignored. */
  dedupeKey?: string;
}

/**
 * The webhook_events table and its fan-out to webhook_deliveries. Called inside the outcome
 * recorders' transactions (purchase and payout), so it is a function of the caller's manager
 * rather than an injected repository.
 *
 * Writes the event and one delivery per enabled endpoint of the vendor subscribed to its type in
 * one statement, then each delivery's first job in the outbox, inside the caller's transaction:
 * the event exists exactly when the status change that causes it commits. A vendor without a
 * subscribed endpoint costs the one statement. Returns the event id, or null when a dedupe key
 * had already been used.
 */
export async function recordWebhookEvent(manager: Pick<EntityManager, 'query'>, event: NewWebhookEvent): Promise<string | null> {
  const rows: { id: string; deliveries: { id: string; seq: number }[] }[] = await manager.query(
    `WITH event AS (
       INSERT INTO webhook_events (vendor_id, type, resource_id, data, dedupe_key) VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, vendor_id, type),
     delivery AS (
       INSERT INTO webhook_deliveries (event_id, endpoint_id)
       SELECT event.id, endpoint.id FROM event JOIN webhook_endpoints endpoint
         ON endpoint.vendor_id = event.vendor_id AND event.type = ANY (endpoint.events) AND endpoint.enabled AND endpoint.deleted_at IS NULL
       RETURNING id, seq)
     SELECT id, (SELECT coalesce(jsonb_agg(jsonb_build_object('id', delivery.id::text, 'seq', delivery.seq)), '[]'::jsonb) FROM delivery) AS deliveries FROM event`,
    [event.vendorId, event.type, event.resourceId, JSON.stringify(event.data), event.dedupeKey ?? null],
  );
  const [created] = rows;
  if (!created) return null;
  if (created.deliveries.length > 0) {
    const jobs = created.deliveries.map((delivery) => outboxBindValues(jobSpec('webhook.deliver', { deliveryId: delivery.id, seq: delivery.seq })));
    await manager.query(outboxRowsFrom('unnest($1::text[], $2::text[]) AS t(job_id, payload)', 'webhook.deliver', { id: 't.job_id', payload: 't.payload', runAt: 'now()' }), [
      jobs.map(([id]) => id),
      jobs.map(([, payload]) => payload),
    ]);
  }
  return created.id;
}
