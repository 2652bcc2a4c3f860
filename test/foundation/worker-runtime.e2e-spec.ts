import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { ConfigModule } from '#config';
import { DatabaseModule } from '#database';
import { JobHandlerRegistry, MissingJobHandlerError, OUTBOX_ENTITIES, OutboxRelay, QUEUE_NAMES, QUEUES, QueueProducer, RedisModule, WorkerQueuesModule, enqueueInTransaction, jobSpec, type JobName } from '#queues';
import { testConfig } from '../support/test-config.js';

const ALL_JOBS = QUEUE_NAMES.flatMap((queue) => QUEUES[queue] as readonly JobName[]);
const seen: { name: string; data: unknown }[] = [];

@Injectable()
class RecordingHandlers implements OnModuleInit {
  constructor(private readonly registry: JobHandlerRegistry) {}
  onModuleInit() {
    for (const job of handled) {
      this.registry.register(job, {
        handle: async (received: Job) => void seen.push({ name: received.name, data: received.data }),
        onFinalFailure: async () => undefined,
      });
    }
  }
}
let handled: JobName[] = [];

@Module({ imports: [WorkerQueuesModule], providers: [RecordingHandlers] })
class RecordingModule {}

async function bootWorker(jobs: JobName[]) {
  handled = jobs;
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(testConfig()), DatabaseModule.forRoot({ applicationName: 'worker-test', entities: OUTBOX_ENTITIES }), RedisModule, WorkerQueuesModule, RecordingModule],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

describe('worker runtime and outbox', () => {
  it('refuses to start while any registered job has no handler', async () => {
    const missing = ALL_JOBS.slice(1);
    await expect(bootWorker(missing)).rejects.toBeInstanceOf(MissingJobHandlerError);
  });

  it('rejects job ids BullMQ would refuse, inside the caller transaction', async () => {
    const app = await bootWorker(ALL_JOBS);
    try {
      await expect(
        app.get(DataSource).transaction((manager) => enqueueInTransaction(manager, jobSpec('purchase.submit', { transactionId: 'abc:def' }))),
      ).rejects.toThrow(/cannot contain ":"/);
    } finally {
      await app.close();
    }
  });

  it('relays committed outbox rows to BullMQ exactly once and runs their handlers', async () => {
    const app = await bootWorker(ALL_JOBS);
    try {
      const dataSource = app.get(DataSource);
      const marker = `t-${Date.now()}`;
      await dataSource.transaction(async (manager) => {
        // The same job twice: the registry builds the same id, and the two collapse into one job.
        await enqueueInTransaction(manager, jobSpec('purchase.submit', { transactionId: marker }));
        await enqueueInTransaction(manager, jobSpec('purchase.submit', { transactionId: marker }));
      });
      // A rolled-back transaction leaves nothing to relay.
      await dataSource
        .transaction(async (manager) => {
          await enqueueInTransaction(manager, jobSpec('purchase.submit', { transactionId: `${marker}-rolled-back` }));
          throw new Error('rollback');
        })
        .catch(() => undefined);

      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !seen.some((entry) => (entry.data as { transactionId: string }).transactionId === marker)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const mine = seen.filter((entry) => String((entry.data as { transactionId: string }).transactionId).startsWith(marker));
      expect(mine).toEqual([{ name: 'purchase.submit', data: { transactionId: marker } }]);
      const [{ pending }] = await dataSource.query(`SELECT count(*)::int AS pending FROM outbox_messages WHERE dispatched_at IS NULL AND job_id LIKE $1`, [`submit.${marker}%`]);
      expect(pending).toBe(0);
      expect(app.get(OutboxRelay)).toBeDefined();
      expect(app.get(QueueProducer)).toBeDefined();
    } finally {
      await app.close();
    }
  });
});
