import { startHttpService } from '#bootstrap';
import { RECONCILIATION_WORKER_CONFIG, ReconciliationWorkerModule } from './reconciliation-worker.module.js';

// HTTP serves only health and metrics; the work happens in the BullMQ consumers.
await startHttpService({
  name: 'reconciliation-worker',
  defaultPort: 3002,
  config: RECONCILIATION_WORKER_CONFIG,
  module: (config) => ReconciliationWorkerModule.register(config),
  http: { bodyLimit: '16kb' },
});
