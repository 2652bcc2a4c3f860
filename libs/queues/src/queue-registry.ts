import type { JobsOptions } from 'bullmq';

/**
 * Every queue and job of the system. Redis keys are prefixed with a hash tag (GatewayEnv
 * QUEUE_PREFIX, default `{gw}`) so that all keys of a queue land in one Redis Cluster slot.
 */

export interface JobPayloads {
  'purchase.submit': { transactionId: string };
  /** `check` is the transaction's check_seq when scheduled as part of its polling chain. */
  'purchase.verify': { transactionId: string; reason: 'submission' | 'callback' | 'poll' | 'reversal-watch' | 'manual'; check?: number };
  'payout.batch-item': { payoutId: string };
  'payout.poll-status': { payoutId: string };
  /** One attempt of a webhook delivery; `seq` is the delivery row's job generation (a stale one does nothing). */
  'webhook.deliver': { deliveryId: string; seq: number };
}

export type JobName = keyof JobPayloads;

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
