import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobPayloads } from '../queue-registry.js';

export interface JobHandler<J extends JobName = JobName> {
  handle(job: Job<JobPayloads[J]>): Promise<void>;
  /** Called once when the last attempt has failed: money jobs must leave a reviewable state. */
  onFinalFailure(job: Job<JobPayloads[J]>, error: Error): Promise<void>;
}

/** Handlers register in onModuleInit; the worker runtime refuses to start with any job unhandled. */
@Injectable()
export class JobHandlerRegistry {
  private readonly handlers = new Map<JobName, JobHandler>();

  register<J extends JobName>(jobName: J, handler: JobHandler<J>): void {
    if (this.handlers.has(jobName)) throw new Error(`Job ${jobName} already has a handler`);
    this.handlers.set(jobName, handler as unknown as JobHandler);
  }

  get(jobName: JobName): JobHandler | undefined {
    return this.handlers.get(jobName);
  }

  missing(expected: readonly JobName[]): JobName[] {
    return expected.filter((jobName) => !this.handlers.has(jobName));
  }
}
