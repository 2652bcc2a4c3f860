import { startHttpService } from '#bootstrap';
import { ReconciliationWorkerModule } from './reconciliation-worker.module.js';

// HTTP serves only health and metrics; the work happens in the BullMQ consumers.
await startHttpService({
  name: 'reconciliation-worker',
  defaultPort: 3002,
  module: ReconciliationWorkerModule,
  http: { bodyLimit: '16kb' },
});
