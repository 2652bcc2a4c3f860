import type { EntityManager } from 'typeorm';
import { assertValidJobId, type JobName, type JobPayloads } from '../queue-registry.js';
import { OutboxMessageEntity } from './outbox-message.entity.js';

/** Records a job inside the caller's database transaction; the relay enqueues it after commit. */
export async function enqueueInTransaction<J extends JobName>(
  manager: EntityManager,
  jobName: J,
  jobId: string,
  payload: JobPayloads[J],
  runAt: Date = new Date(),
): Promise<void> {
  assertValidJobId(jobId);
  await manager
    .createQueryBuilder()
    .insert()
    .into(OutboxMessageEntity)
    .values({ jobName, jobId, payload: () => ':payload::jsonb', runAt, dispatchedAt: null })
    .setParameter('payload', JSON.stringify(payload))
    .execute();
}

/**
 * The same outbox rows as enqueueInTransaction, as SQL for a statement that writes them together
 * with the change they follow: one row per row of `from` (a CTE or a set-returning call), so the
 * job exists only if that change happened. The other arguments are SQL expressions over `from`
 * or the caller's parameters; job ids must pass assertValidJobId before they are bound.
 */
export function outboxRowsFrom(from: string, job: { name: JobName; id: string; payload: string; runAt: string }): string {
  return `INSERT INTO outbox_messages (job_name, job_id, payload, run_at) SELECT '${job.name}', ${job.id}, ${job.payload}, ${job.runAt} FROM ${from}`;
}
