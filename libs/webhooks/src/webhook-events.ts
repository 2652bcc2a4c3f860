import type { EntityManager } from 'typeorm';
import type { WebhookEventType } from './webhook-event-types.js';

export const WEBHOOK_DELIVER_JOB = 'webhook.deliver';

/** Deterministic job id of a delivery's generation `seq` (BullMQ ids cannot contain ':'). */
export const webhookJobId = (deliveryId: string, seq: number) => `webhook-${deliveryId}-${seq}`;

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
 * Writes the event, one delivery per enabled endpoint of the vendor subscribed to its type, and
 * each delivery's first job in the outbox, in ONE statement inside the caller's transaction: the
 * event exists exactly when the status change that causes it commits. Returns the event id, or
 * null when a dedupe key had already been used.
 */
export async function recordWebhookEvent(manager: Pick<EntityManager, 'query'>, event: NewWebhookEvent): Promise<string | null> {
  const rows: { id: string }[] = await manager.query(
    `WITH event AS (
       INSERT INTO webhook_events (vendor_id, type, resource_id, data, dedupe_key) VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, vendor_id, type),
     delivery AS (
       INSERT INTO webhook_deliveries (event_id, endpoint_id)
       SELECT event.id, endpoint.id FROM event JOIN webhook_endpoints endpoint
         ON endpoint.vendor_id = event.vendor_id AND event.type = ANY (endpoint.events) AND endpoint.enabled AND endpoint.deleted_at IS NULL
       RETURNING id, seq),
     job AS (
       INSERT INTO outbox_messages (job_name, job_id, payload, run_at)
       SELECT '${WEBHOOK_DELIVER_JOB}', 'webhook-' || delivery.id || '-' || delivery.seq, jsonb_build_object('deliveryId', delivery.id, 'seq', delivery.seq), now()
         FROM delivery)
     SELECT id FROM event`,
    [event.vendorId, event.type, event.resourceId, JSON.stringify(event.data), event.dedupeKey ?? null],
  );
  return rows[0]?.id ?? null;
}
