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
