import { Injectable } from '@nestjs/common';
import sql, { type Sql } from 'sql-template-tag';
import { DataSource, type EntityManager } from 'typeorm';
import type { JobName, JobSpec } from '../queue-registry.js';
import { OutboxMessageEntity } from './outbox-message.entity.js';

/** The outbox table as the code maps it; every app whose code enqueues registers it (DatabaseModule.forRoot). */
export const OUTBOX_ENTITIES = [OutboxMessageEntity];

/** A committed job waiting to be relayed to BullMQ. */
export interface OutboxMessage {
  id: string;
  jobName: JobName;
  jobId: string;
  payload: Record<string, unknown>;
  runAt: Date;
}

/** Records a job inside the caller's database transaction; the relay enqueues it after commit. */
export async function enqueueInTransaction(manager: EntityManager, job: JobSpec, runAt: Date = new Date()): Promise<void> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(OutboxMessageEntity)
    .values({ jobName: job.name, jobId: job.id, payload: () => ':payload::jsonb', runAt, dispatchedAt: null })
    .setParameter('payload', JSON.stringify(job.payload))
    .execute();
}

/** The bind values for one outbox row of outboxRowsFrom: the job's id and its payload as JSON. */
export function outboxBindValues(job: JobSpec): [id: string, payload: string] {
  return [job.id, JSON.stringify(job.payload)];
}

/**
 * Where one outbox row's values come from: a string or Date is a bound value, an `Sql` fragment
 * an expression (a column of `from`, `now()`).
 */
export interface OutboxRowValues {
  id: string | Sql;
  payload: string | Sql;
  runAt: Date | Sql;
}

/**
 * The same outbox rows as enqueueInTransaction, as an SQL fragment for a statement that writes
 * them together with the change they follow: one row per row of `from` (a CTE or a set-returning
 * call), so the job exists only if that change happened. The job name is bound like every other
 * value; the id and payload are those of outboxBindValues (from jobSpec), so every job goes
 * through the typed registry, or, for a job whose payload exists only inside the statement, the
 * registry's own SQL form of it (webhookDeliverJobSql).
 */
export function outboxRowsFrom(from: Sql, jobName: JobName, values: OutboxRowValues): Sql {
  return sql`INSERT INTO outbox_messages (job_name, job_id, payload, run_at) SELECT ${jobName}::text, ${values.id}::text, ${values.payload}::jsonb, ${values.runAt}::timestamptz FROM ${from}`;
}

/** The outbox row of one job for each row of `from` (usually the CTE of the change it follows). */
/**
 * `EXISTS` over the not yet dispatched outbox rows of `jobName` that `matches` (a condition on
 * `o`, the outbox row): whether a job the relay will still enqueue already covers the work, so a
 * sweeper does not rebuild it. The job name is a bound value, never text inside the SQL.
 */
export function undispatchedOutboxRow(jobName: JobName, matches: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM outbox_messages o WHERE o.dispatched_at IS NULL AND o.job_name = ${jobName}::text AND ${matches})`;
}

export function outboxRowOf(from: Sql, job: JobSpec, runAt: Date | Sql): Sql {
  const [id, payload] = outboxBindValues(job);
  return outboxRowsFrom(from, job.name, { id, payload, runAt });
}

/** The outbox rows of several jobs of one name, unnested server-side (one statement for up to a batch of 500). */
export function outboxRowsOfJobs(jobName: JobName, jobs: readonly JobSpec[]): Sql {
  const bound = jobs.map(outboxBindValues);
  const from = sql`unnest(${bound.map(([id]) => id)}::text[], ${bound.map(([, payload]) => payload)}::text[]) AS t(job_id, payload)`;
  return outboxRowsFrom(from, jobName, { id: sql`t.job_id`, payload: sql`t.payload`, runAt: sql`now()` });
}

/** The relay's side of `outbox_messages`: claim, hand over, mark dispatched. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims up to `limit` undispatched rows in id order with SKIP LOCKED (replicas relay side by
   * side), awaits `dispatch`, and marks exactly those rows dispatched in the same transaction:
   * if `dispatch` throws, the rows stay undispatched and are claimed again. Returns the count.
   */
  async dispatchBatch(limit: number, dispatch: (messages: OutboxMessage[]) => Promise<void>): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: OutboxMessage[] = await manager.query(
        `SELECT id, job_name AS "jobName", job_id AS "jobId", payload, run_at AS "runAt" FROM outbox_messages
          WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await dispatch(rows);
      await manager.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
      return rows.length;
    });
  }
}
