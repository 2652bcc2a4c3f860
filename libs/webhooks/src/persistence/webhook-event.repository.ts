import sql, { type Sql } from 'sql-template-tag';
import type { EntityManager } from 'typeorm';
import { jobSpec, outboxRowsFrom, outboxRowsOfJobs, webhookDeliverJobSql } from '#queues';
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
  const statement = sql`WITH ${webhookEventCtes(event, sql`true`)} SELECT id, ${WEBHOOK_DELIVERIES_WRITTEN} AS deliveries FROM event`;
  const rows: WrittenWebhookEvent[] = await manager.query(statement.text, statement.values);
  const [created] = rows;
  if (!created) return null;
  await enqueueWebhookDeliveries(manager, created.deliveries);
  return created.id;
}

/** What the event CTEs wrote: the event and its deliveries (the `deliveries` column of WEBHOOK_DELIVERIES_WRITTEN). */
export interface WrittenWebhookEvent {
  id: string;
  deliveries: WebhookDeliveryWritten[];
}

/** A delivery and its job generation: a job for another seq is stale. */
export interface WebhookDeliveryWritten {
  id: string;
  seq: number;
}

/**
 * recordWebhookEvent's first statement as two CTEs, `event` and `delivery`, for a statement that
 * writes the event together with the status change causing it; the event's values are bound in
 * the fragment. The event is written only where `onlyIf` (e.g. that a sibling CTE changed a row)
 * holds. The caller selects WEBHOOK_DELIVERIES_WRITTEN and, in the same transaction, passes it
 * to enqueueWebhookDeliveries.
 */
export function webhookEventCtes(event: NewWebhookEvent, onlyIf: Sql): Sql {
  return eventCtes(
    sql`SELECT ${event.vendorId}::uuid, ${event.type}::text, ${event.resourceId}::uuid, ${JSON.stringify(event.data)}::jsonb, ${event.dedupeKey ?? null}::text WHERE ${onlyIf}`,
  );
}

/**
 * webhookEventCtes for a statement that is a whole database transaction by itself (no BEGIN): the
 * event's `data` is an SQL expression of the statement (the row its change returns, as the vendor
 * reads it), and each delivery's first job is written by the statement too (CTE `delivery_job`),
 * where enqueueWebhookDeliveries would write it in the caller's transaction. The event, its
 * deliveries and their jobs exist exactly when the change does, as with the other form.
 */
export function webhookEventWithJobsCtes(event: Omit<NewWebhookEvent, 'data'>, data: Sql, onlyIf: Sql): Sql {
  return webhookEventsWithJobsCtes(sql`SELECT ${event.vendorId}::uuid, ${event.type}::text, ${event.resourceId}::uuid, ${data}, ${event.dedupeKey ?? null}::text WHERE ${onlyIf}`);
}

/**
 * webhookEventWithJobsCtes for any number of events: `events` is a query answering their
 * (vendor_id, type, resource_id, data, dedupe_key) rows, e.g. one per row a sibling CTE changed.
 */
export function webhookEventsWithJobsCtes(events: Sql): Sql {
  const job = webhookDeliverJobSql(sql`delivery.id`, sql`delivery.seq`);
  return sql`${eventCtes(events)},
     delivery_job AS (${outboxRowsFrom(sql`delivery`, 'webhook.deliver', { ...job, runAt: sql`now()` })})`;
}

function eventCtes(events: Sql): Sql {
  return sql`event AS (
       INSERT INTO webhook_events (vendor_id, type, resource_id, data, dedupe_key)
       ${events}
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, vendor_id, type),
     delivery AS (
       INSERT INTO webhook_deliveries (event_id, endpoint_id)
       SELECT event.id, endpoint.id FROM event JOIN webhook_endpoints endpoint
         ON endpoint.vendor_id = event.vendor_id AND event.type = ANY (endpoint.events) AND endpoint.enabled AND endpoint.deleted_at IS NULL
       RETURNING id, seq)`;
}

/** The deliveries webhookEventCtes wrote, as a jsonb array of {id, seq} (empty when none). */
export const WEBHOOK_DELIVERIES_WRITTEN = sql`(SELECT coalesce(jsonb_agg(jsonb_build_object('id', delivery.id::text, 'seq', delivery.seq)), '[]'::jsonb) FROM delivery)`;

/** Each delivery's first job in the outbox, in the caller's transaction; no statement when there is none. */
export async function enqueueWebhookDeliveries(manager: Pick<EntityManager, 'query'>, deliveries: readonly WebhookDeliveryWritten[]): Promise<void> {
  if (deliveries.length === 0) return;
  const statement = outboxRowsOfJobs(
    'webhook.deliver',
    deliveries.map((delivery) => jobSpec('webhook.deliver', { deliveryId: delivery.id, seq: delivery.seq })),
  );
  await manager.query(statement.text, statement.values);
}
