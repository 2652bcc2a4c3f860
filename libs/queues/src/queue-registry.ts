import type { JobsOptions } from 'bullmq';
import sql, { type Sql } from 'sql-template-tag';

/**
 * Every queue and job of the system. Redis keys are prefixed with a hash tag (GatewayEnv
 * QUEUE_PREFIX, default `{gw}`) so that all keys of a queue land in one Redis Cluster slot.
 */

/**
 * A purchase verification. A link of the transaction's polling chain carries `check`, the
 * transaction's check_seq when it was scheduled; a callback hint carries the marker it answers;
 * a staff request carries when it was made. The variant decides the job id (see JOB_IDS).
 */
export type PurchaseVerifyPayload =
  | { transactionId: string; reason: 'submission' | 'poll' | 'reversal-watch'; check: number }
  | { transactionId: string; reason: 'callback'; marker: string }
  | { transactionId: string; reason: 'manual'; requestedAt: number };

export interface JobPayloads {
  'purchase.submit': { transactionId: string };
  'purchase.verify': PurchaseVerifyPayload;
  'payout.batch-item': { payoutId: string };
  /** `link` is the payout's poll_count when this link of its status-poll chain was scheduled. */
  'payout.poll-status': { payoutId: string; link: number };
  /** One attempt of a webhook delivery; `seq` is the delivery row's job generation (a stale one does nothing). */
  'webhook.deliver': { deliveryId: string; seq: number };
}

export type JobName = keyof JobPayloads;

/**
 * The one place a job's id is built, from its payload. BullMQ keeps one job per id, so the id is
 * what makes a job idempotent: the same logical job enqueued twice (the outbox relay after a
 * crash, a sweeper after a Redis loss) collapses into one.
 */
const JOB_IDS: { [J in JobName]: (payload: JobPayloads[J]) => string } = {
  'purchase.submit': ({ transactionId }) => `submit.${transactionId}`,
  'purchase.verify': (payload) => {
    switch (payload.reason) {
      case 'callback':
        return `verify.${payload.transactionId}.callback.${payload.marker}`;
      case 'manual':
        return `verify.${payload.transactionId}.manual.${payload.requestedAt}`;
      case 'poll':
      case 'reversal-watch':
      case 'submission':
        return `verify.${payload.transactionId}.${payload.check}`;
    }
  },
  'payout.batch-item': ({ payoutId }) => `payout-batch-item.${payoutId}`,
  'payout.poll-status': ({ payoutId, link }) => `payout-poll.${payoutId}.${link}`,
  'webhook.deliver': ({ deliveryId, seq }) => `webhook-${deliveryId}-${seq}`,
};

/**
 * A `webhook.deliver` job's id and payload as SQL over a delivery's `id` and `seq` (JOB_IDS's id
 * and jobSpec's payload, written out in SQL): for a statement that writes a delivery and its job
 * together, where the delivery's id exists only inside the statement (webhookEventWithJobsCtes).
 * test/purchase/unlocked-recording checks a job written so against jobSpec's.
 */
export function webhookDeliverJobSql(deliveryId: Sql, seq: Sql): { id: Sql; payload: Sql } {
  return {
    id: sql`'webhook-' || ${deliveryId}::text || '-' || ${seq}::text`,
    payload: sql`jsonb_build_object('deliveryId', ${deliveryId}::text, 'seq', ${seq})`,
  };
}

/** A job ready to enqueue: its name, its payload and the id the registry built for it. */
export interface JobSpec<J extends JobName = JobName> {
  readonly name: J;
  readonly id: string;
  readonly payload: JobPayloads[J];
}

/**
 * Builds a job with its registry id. `variant` names a deliberate second job for the same work
 * (a sweeper's rebuild next to a job kept in the failed set): it is appended as `<id>.<variant>`.
 */
export function jobSpec<J extends JobName>(name: J, payload: JobPayloads[J], variant?: string): JobSpec<J> {
  const base = JOB_IDS[name](payload);
  const id = variant === undefined ? base : `${base}.${variant}`;
  assertValidJobId(id);
  return { name, id, payload };
}

export const QUEUES = {
  'purchase-submission': ['purchase.submit'],
  'purchase-verification': ['purchase.verify'],
  'payout-batch': ['payout.batch-item'],
  'payout-status': ['payout.poll-status'],
  'webhook-delivery': ['webhook.deliver'],
} as const satisfies Record<string, readonly JobName[]>;

export type QueueName = keyof typeof QUEUES;

export const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];

export function queueOf(job: JobName): QueueName {
  const found = QUEUE_NAMES.find((queue) => (QUEUES[queue] as readonly JobName[]).includes(job));
  if (!found) throw new Error(`Job ${job} belongs to no queue`);
  return found;
}

/**
 * Explicit attempts, backoff and bounded retention for every job; money jobs keep their
 * failures for a week so staff can inspect them.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 86_400, count: 50_000 },
};

export class InvalidJobIdError extends Error {
  constructor(jobId: string) {
    super(`Invalid job id "${jobId}": BullMQ custom job ids cannot contain ":"; use "-" or "." as separators`);
  }
}

/** Fails at the call site, inside the caller's transaction, instead of in the relay later. */
export function assertValidJobId(jobId: string): void {
  if (jobId.length === 0 || jobId.includes(':')) throw new InvalidJobIdError(jobId);
}
