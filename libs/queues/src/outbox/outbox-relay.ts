import { Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { OutboxRepository, type OutboxMessage } from '../persistence/outbox.repository.js';
import { queueOf } from '../queue-registry.js';
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
    private readonly outbox: OutboxRepository,
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
    return this.outbox.dispatchBatch(BATCH_SIZE, async (messages) => {
      const byQueue = new Map<string, OutboxMessage[]>();
      for (const message of messages) byQueue.set(queueOf(message.jobName), [...(byQueue.get(queueOf(message.jobName)) ?? []), message]);
      for (const [queueName, queueMessages] of byQueue) {
        await this.producer.queue(queueName as never).addBulk(
          queueMessages.map((message) => ({
            name: message.jobName,
            data: message.payload,
            opts: { jobId: message.jobId, delay: Math.max(0, new Date(message.runAt).getTime() - Date.now()) },
          })),
        );
      }
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
