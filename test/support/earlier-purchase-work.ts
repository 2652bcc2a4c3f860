import type { INestApplication } from '@nestjs/common';
import { PurchaseCallbackClaimsService, PurchaseCheckClaimsService, PurchaseSubmissionClaimsService } from '#purchase';
import type { ClaimLoopService } from '#queues';

/**
 * The suites of a run share one database, and a worker claims purchase work from it whoever left
 * it: unsubmitted purchases, due checks and unanswered callback markers (PurchaseSubmissionClaimsService,
 * PurchaseCheckClaimsService, PurchaseCallbackClaimsService). A new stack first closes what earlier suites left
 * open, so its worker sends its sandbox only its own suite's purchases: an earlier suite's
 * unsubmitted purchase is marked attempted with an unknown outcome (never created: it stays
 * pending, no check scheduled), every scheduled check is dropped and every open marker answered.
 */
export async function closeEarlierPurchaseWork(db: { query: (sql: string) => Promise<unknown> }): Promise<void> {
  await db.query(
    `UPDATE purchase_transactions SET submission_attempted_at = now(), submission_ended_at = now(), submission_outcome = 'unknown'
      WHERE status = 'pending' AND submission_attempted_at IS NULL AND provider_transaction_id IS NULL`,
  );
  await db.query(`UPDATE purchase_transactions SET next_check_at = NULL WHERE next_check_at IS NOT NULL`);
  await db.query(`UPDATE purchase_callback_markers SET processed_at = now() WHERE processed_at IS NULL`);
}

/**
 * Stops a worker's purchase claim loops before the worker app is closed. A close can wait a long
 * time on its queue workers (Redis, jobs in flight); a worker whose close never finished would go
 * on claiming the next suites' purchases and sending them to its own sandbox.
 */
export async function stopPurchaseClaims(worker: INestApplication | undefined): Promise<void> {
  if (!worker) return;
  for (const loop of [PurchaseSubmissionClaimsService, PurchaseCheckClaimsService, PurchaseCallbackClaimsService]) {
    await worker.get<ClaimLoopService>(loop, { strict: false }).onModuleDestroy();
  }
}
