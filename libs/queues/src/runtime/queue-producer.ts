import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { settleWithin } from '#common';
import { GatewayEnv } from '#config';
import { DEFAULT_JOB_OPTIONS, QUEUE_NAMES, queueOf, type JobSpec, type QueueName } from '../queue-registry.js';
import { createRedisConnection } from '../redis-connection.js';

/** How long each closing step may take before the connection is dropped instead. */
const CLOSE_BOUND_MS = 2_000;

/** Typed access to the BullMQ queues; used by the outbox relay and by idempotent re-schedulers. */
@Injectable()
export class QueueProducer implements OnApplicationShutdown {
  private readonly connection;
  private readonly queues: Map<QueueName, Queue>;

  constructor(config: GatewayEnv) {
    this.connection = createRedisConnection(config.REDIS_URL, 'client');
    this.connection.on('error', () => undefined);
    this.queues = new Map(
      QUEUE_NAMES.map((name) => [name, new Queue(name, { connection: this.connection, prefix: config.QUEUE_PREFIX, defaultJobOptions: DEFAULT_JOB_OPTIONS })]),
    );
  }

  queue(name: QueueName): Queue {
    return this.queues.get(name)!;
  }

  async add(job: JobSpec, delayMs = 0): Promise<void> {
    await this.queue(queueOf(job.name)).add(job.name, job.payload, { jobId: job.id, delay: Math.max(0, delayMs) });
  }

  /**
   * Takes a job that has not started out of its queue; false when it is running (locked). A job
   * that is not there counts as removed: BullMQ keeps nothing to take out.
   */
  async remove(job: JobSpec): Promise<boolean> {
    return (await this.queue(queueOf(job.name)).remove(job.id, { removeChildren: false })) === 1;
  }

  /** Bounded: a queue whose connection is stuck reconnecting never finishes closing (see WorkerRuntime). */
  async onApplicationShutdown(): Promise<void> {
    await settleWithin(Promise.all([...this.queues.values()].map((queue) => queue.close())), CLOSE_BOUND_MS);
    const quitting = this.connection.quit().catch(() => this.connection.disconnect());
    if (!(await settleWithin(quitting, CLOSE_BOUND_MS))) this.connection.disconnect();
  }
}
