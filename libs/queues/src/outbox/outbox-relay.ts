import { Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queueOf, type JobName } from '../queue-registry.js';
import { QueueProducer } from '../runtime/queue-producer.js';

const BATCH_SIZE = 200;
const IDLE_POLL_MS = 100;

/**
 * Moves committed outbox rows to BullMQ. Rows are claimed with SKIP LOCKED so several worker
 * replicas can relay side by side; a row is marked dispatched only in the same transaction
 * after BullMQ accepted it, and deterministic job ids make a repeat harmless.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private running = false;
  private loop?: Promise<void>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly producer: QueueProducer,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  // Runs before any connection closes, so in-flight jobs finish with the database still open.
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let relayed = 0;
      try {
        relayed = await this.relayBatch();
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'Outbox relay failed; retrying');
        await sleep(1_000);
      }
      if (relayed < BATCH_SIZE) await sleep(IDLE_POLL_MS);
    }
  }

  /** Relays one batch; exposed for tests and the ops CLI. */
  async relayBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { id: string; job_name: JobName; job_id: string; payload: Record<string, unknown>; run_at: Date }[] = await manager.query(
        `SELECT id, job_name, job_id, payload, run_at FROM outbox_messages
          WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [BATCH_SIZE],
      );
      if (rows.length === 0) return 0;
      const byQueue = new Map<string, typeof rows>();
      for (const row of rows) byQueue.set(queueOf(row.job_name), [...(byQueue.get(queueOf(row.job_name)) ?? []), row]);
      for (const [queueName, queueRows] of byQueue) {
        await this.producer.queue(queueName as never).addBulk(
          queueRows.map((row) => ({
            name: row.job_name,
            data: row.payload,
            opts: { jobId: row.job_id, delay: Math.max(0, new Date(row.run_at).getTime() - Date.now()) },
          })),
        );
      }
      await manager.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
      return rows.length;
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
