import type { EntityManager } from 'typeorm';
import type { JobName, JobSpec } from '../queue-registry.js';
import { OutboxMessageEntity } from './outbox-message.entity.js';

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
 * The same outbox rows as enqueueInTransaction, as SQL for a statement that writes them together
 * with the change they follow: one row per row of `from` (a CTE or a set-returning call), so the
 * job exists only if that change happened. `bind` names the statement's parameters (or columns
 * of `from`) holding the values of outboxBindValues: the id and payload come from jobSpec, never
 * from SQL, so every job goes through the typed registry.
 */
export function outboxRowsFrom(from: string, jobName: JobName, bind: { id: string; payload: string; runAt: string }): string {
  return `INSERT INTO outbox_messages (job_name, job_id, payload, run_at) SELECT '${jobName}', ${bind.id}, ${bind.payload}::jsonb, ${bind.runAt} FROM ${from}`;
}
