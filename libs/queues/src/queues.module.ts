import { Module } from '@nestjs/common';
import { OutboxRelay } from './outbox/outbox-relay.js';
import { OutboxRepository } from './persistence/outbox.repository.js';
import { JobHandlerRegistry } from './runtime/job-handler.registry.js';
import { QueueProducer } from './runtime/queue-producer.js';
import { WorkerRuntime } from './runtime/worker-runtime.js';

/** Producer side only (gateways that must enqueue directly, e.g. deduplicated callback hints). */
@Module({ providers: [QueueProducer], exports: [QueueProducer] })
export class QueueProducerModule {}

/** Everything the worker needs: handler registry, runtime, outbox relay. */
@Module({
  imports: [QueueProducerModule],
  providers: [JobHandlerRegistry, WorkerRuntime, OutboxRepository, OutboxRelay],
  exports: [JobHandlerRegistry, QueueProducerModule, OutboxRelay],
})
export class WorkerQueuesModule {}
