import { Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import { settleWithin } from '#common';
import { GatewayEnv } from '#config';
import { QUEUE_NAMES, QUEUES, type JobName } from '../queue-registry.js';
import { createRedisConnection } from '../redis-connection.js';
import { JobHandlerRegistry } from './job-handler.registry.js';

export class MissingJobHandlerError extends Error {
  constructor(readonly jobs: JobName[]) {
    super(`Refusing to start: no handler for job(s) ${jobs.join(', ')}`);
  }
}

/** Consumes every registered queue and dispatches each job to its handler by name. */
@Injectable()
export class WorkerRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerRuntime.name);
  private readonly workers: Worker[] = [];

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly config: GatewayEnv,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const expected = QUEUE_NAMES.flatMap((queue) => QUEUES[queue] as readonly JobName[]);
    const missing = this.registry.missing(expected);
    if (missing.length > 0) throw new MissingJobHandlerError(missing);

    for (const queue of QUEUE_NAMES) {
      const worker = new Worker(queue, (job) => this.dispatch(job), {
        connection: createRedisConnection(this.config.REDIS_URL, 'worker'),
        prefix: this.config.QUEUE_PREFIX,
        concurrency: this.config.WORKER_CONCURRENCY,
        // A job whose worker died is retried after this long; handlers are idempotent.
        lockDuration: this.config.WORKER_JOB_LOCK_MS,
        stalledInterval: this.config.WORKER_JOB_LOCK_MS,
        maxStalledCount: 5,
      });
      worker.on('failed', (job, error) => void this.onFailed(job, error));
      worker.on('error', (error) => this.logger.error({ err: error, queue }, 'Worker error'));
      this.workers.push(worker);
    }
    this.logger.log(`Consuming ${QUEUE_NAMES.length} queues with concurrency ${this.config.WORKER_CONCURRENCY}`);
  }

  private async dispatch(job: Job): Promise<void> {
    const handler = this.registry.get(job.name as JobName);
    if (!handler) throw new Error(`No handler for job ${job.name}`);
    await handler.handle(job);
  }

  private async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job) return;
    const finalAttempt = job.attemptsMade >= (job.opts.attempts ?? 1);
    this.logger.warn({ jobId: job.id, job: job.name, attempt: job.attemptsMade, final: finalAttempt, err: error.message }, 'Job attempt failed');
    if (!finalAttempt) return;
    try {
      await this.registry.get(job.name as JobName)?.onFinalFailure(job, error);
    } catch (finalError) {
      this.logger.error({ err: finalError, jobId: job.id }, 'Final-failure handler failed');
    }
  }

  /**
   * Stops taking new jobs and waits for the ones in flight, for at most 60 % of the shutdown grace
   * (the rest is for the connections after it). Runs before any connection closes, so in-flight
   * jobs finish with the database still open.
   *
   * The bound matters after a Redis outage: BullMQ's Worker.close() never settles while a
   * connection of the worker is stuck reconnecting (taskforcesh/bullmq#4656, open), and the
   * process would then hang until the orchestrator killed it. A worker still closing at the bound
   * is disconnected; a job it was running is retried by another worker once its lock expires
   * (handlers are idempotent).
   */
  async beforeApplicationShutdown(): Promise<void> {
    const boundMs = Math.floor(this.config.SHUTDOWN_GRACE_MS * 0.6);
    await Promise.all(
      this.workers.map(async (worker) => {
        if (await settleWithin(worker.close(), boundMs)) return;
        this.logger.warn({ queue: worker.name, boundMs }, 'Worker did not close within its share of the shutdown grace; disconnecting it');
        await settleWithin(worker.disconnect(), 1_000);
      }),
    );
  }
}
