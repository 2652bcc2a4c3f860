import sql, { join, raw, type Sql } from 'sql-template-tag';
import { webhookEventsWithJobsCtes } from '#webhooks';
import { sourcesOf } from '../model/transaction-status.js';
import type { StatusEvent } from './transaction.repository.js';

/** One recording's unlocked write, as TransactionRepository.writeIfUnchanged received it. */
export interface UnlockedWrite {
  id: string;
  vendorId: string;
  /** The row version (xmin) the claim read. */
  version: string;
  changes: ReadonlyMap<string, unknown>;
  move: StatusEvent | undefined;
  consumeMarkersUpTo: string | null | undefined;
}

/**
 * The SQL type of each column a recording may write, for the arrays a batch binds. A column
 * missing here makes its recordings go one statement each, as before batching.
 */
const COLUMN_TYPES: Readonly<Record<string, string>> = {
  last_checked_at: 'timestamptz',
  provider_transaction_id: 'bigint',
  provider_status: 'text',
  not_found_streak: 'integer',
  status: 'text',
  updated_at: 'timestamptz',
  completed_at: 'timestamptz',
  reversed_at: 'timestamptz',
  failed_at: 'timestamptz',
  review_at: 'timestamptz',
  reversal_watch_until: 'timestamptz',
  allowance_returned_at: 'timestamptz',
  check_seq: 'integer',
  next_check_at: 'timestamptz',
  error_code: 'text',
};

/**
 * Writes that share a statement's shape (the same columns in the same order, the same move's
 * target, markers answered or not) and can be written by one statement together; null for a write
 * whose columns a batch cannot bind (COLUMN_TYPES).
 */
export function shapeOf(write: UnlockedWrite): string | null {
  const columns = [...write.changes.keys()];
  if (!columns.every((column) => column in COLUMN_TYPES)) return null;
  return `${columns.join(',')}|${write.move?.to ?? ''}|${write.consumeMarkersUpTo ? 'markers' : ''}`;
}

/**
 * Several unlocked writes of one shape as ONE statement, each row applied only to the version its
 * claim read, exactly as writeIfUnchanged's single statement applies one: per row the UPDATE (with
 * the move's guard), its status event, its answered markers and its webhook event with the
 * deliveries' jobs, all written only for the rows the UPDATE changed. Answers the rows written, as
 * `returning` shapes them; a row whose version moved on is not among them and nothing of it is
 * written. The writes' ids must be distinct. Rows are locked in id order, so two batches never wait
 * on each other in a cycle.
 */
export function batchStatement(writes: readonly UnlockedWrite[], returning: Sql, eventData: Sql): Sql {
  const ordered = [...writes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const [first] = ordered;
  const columns = [...first.changes.keys()];
  const move = first.move;
  const markers = Boolean(first.consumeMarkersUpTo);

  const inputs: [string, Sql][] = [
    ['id', sql`${ordered.map((w) => w.id)}::uuid[]`],
    ['version', sql`${ordered.map((w) => w.version)}::xid[]`],
    ...columns.map((column, index): [string, Sql] => [`c${index}`, sql`${ordered.map((w) => w.changes.get(column))}::${raw(COLUMN_TYPES[column])}[]`]),
  ];
  if (move) {
    inputs.push(['from_status', sql`${ordered.map((w) => w.move!.from)}::text[]`]);
    inputs.push(['event_provider_status', sql`${ordered.map((w) => w.move!.providerStatus)}::text[]`]);
    inputs.push(['reason', sql`${ordered.map((w) => w.move!.reason)}::text[]`]);
  }
  if (markers) inputs.push(['marker', sql`${ordered.map((w) => w.consumeMarkersUpTo)}::bigint[]`]);

  const assignments = join(columns.map((column, index) => raw(`${column} = i.c${index}`)), ', ');
  const guard = move ? sql` AND t.status = ANY(${sourcesOf(move.to)}::text[])` : sql``;
  const ctes: Sql[] = [
    sql`input AS MATERIALIZED (SELECT * FROM unnest(${join(inputs.map(([, array]) => array), ', ')}) AS i(${raw(inputs.map(([name]) => name).join(', '))}))`,
    sql`updated AS (
            UPDATE purchase_transactions t SET ${assignments} FROM input i
             WHERE t.id = i.id${guard} AND t.xmin = i.version
            RETURNING ${returning})`,
  ];
  const written = sql`i.id IN (SELECT "id" FROM updated)`;
  if (move) {
    ctes.push(sql`events AS (
            INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, provider_status, reason)
            SELECT i.id, i.from_status, ${move.to}::text, i.event_provider_status, i.reason FROM input i WHERE ${written} ORDER BY i.id)`);
  }
  if (markers) {
    ctes.push(sql`markers AS (
            UPDATE purchase_callback_markers m SET processed_at = now() FROM input i
             WHERE m.transaction_id = i.id AND m.id <= i.marker AND m.processed_at IS NULL AND ${written})`);
  }
  if (move) {
    ctes.push(webhookEventsWithJobsCtes(sql`SELECT u."vendorId"::uuid, ${`transaction.${move.to}`}::text, u."id"::uuid, ${eventData}, NULL::text FROM updated u ORDER BY u."id"`));
  }
  return sql`WITH ${join(ctes, ', ')} SELECT * FROM updated`;
}
