import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TurnBatcher, type Queryable } from '#database';
import type { TransactionRecord } from '../model/transaction-record.js';
import { TRANSACTION } from './transaction-shapes.js';

/** One provider callback's ids and status hint (TransactionEvidenceRepository.addCallbackMarker). */
interface CallbackHint {
  externalId: string | null;
  providerTransactionId: number | null;
  hint: string | null;
}

/**
 * A transaction's evidence and audit trails: the provider's callback markers, the sealed
 * delivery data (fulfilment) and the audit of every read of it.
 */
@Injectable()
export class TransactionEvidenceRepository {
  constructor(private readonly dataSource: DataSource) {}

  // --- provider callbacks (hints) ---

  /**
   * Leaves a durable marker for a callback of the transaction named by either id: one statement,
   * purchase_callback_hint (migrations 1763781700000 and 1763784000100). The marker is the work:
   * the worker claims it (PurchaseCallbackClaimsService). False when neither id names a transaction we hold.
   */
  addCallbackMarker(externalId: string | null, providerTransactionId: number | null, hint: string | null): Promise<boolean> {
    return this.callbackMarkers.add({ externalId, providerTransactionId, hint });
  }

  /**
   * The callbacks that arrive in one turn of the gateway's event loop, one statement for all of
   * them (a provider calls back for a round of creates at about the same time): the same function
   * per callback, in order, through a LATERAL join. Should that statement fail, each callback is
   * tried again alone, so one bad callback answers its own error and the others their markers.
   */
  private readonly callbackMarkers = new TurnBatcher<CallbackHint, boolean>((hints) => this.addCallbackMarkers(hints));

  private async addCallbackMarkers(hints: readonly CallbackHint[]): Promise<(boolean | Promise<boolean>)[]> {
    if (hints.length === 1) return [this.addOneCallbackMarker(hints[0])];
    try {
      const found = await this.dataSource.query<{ n: number }[]>(
        `SELECT c.n::int AS n
           FROM unnest($1::uuid[], $2::bigint[], $3::text[]) WITH ORDINALITY AS c(external_id, provider_transaction_id, hint, n)
          CROSS JOIN LATERAL purchase_callback_hint(c.external_id, c.provider_transaction_id, c.hint) h`,
        [hints.map((h) => h.externalId), hints.map((h) => h.providerTransactionId), hints.map((h) => h.hint)],
      );
      const marked = new Set(found.map((row) => row.n));
      return hints.map((_, index) => marked.has(index + 1));
    } catch {
      return hints.map((hint) => this.addOneCallbackMarker(hint));
    }
  }

  private async addOneCallbackMarker({ externalId, providerTransactionId, hint }: CallbackHint): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(`SELECT transaction_id, marker_id, job_id FROM purchase_callback_hint($1, $2, $3)`, [
      externalId,
      providerTransactionId,
      hint,
    ]);
    return rows.length > 0;
  }

  /**
   * The record and the newest callback marker no lookup has answered, in one read: what a
   * callback's verification starts from (one round trip instead of two).
   */
  async recordWithOpenMarker(transactionId: string): Promise<(TransactionRecord & { openMarker: string | null }) | undefined> {
    const [row] = await this.dataSource.query<(object & { open_marker: string | null })[]>(
      `SELECT ${TRANSACTION.columns},
              (SELECT max(m.id) FROM purchase_callback_markers m WHERE m.transaction_id = t.id AND m.processed_at IS NULL) AS open_marker
         FROM purchase_transactions t WHERE t.id = $1`,
      [transactionId],
    );
    return row ? { ...TRANSACTION.read(row), openMarker: row.open_marker } : undefined;
  }

  /** Marks the markers up to `upTo` as processed (in the caller's transaction when given). */
  async consumeMarkers(transactionId: string, upTo: string, manager: Queryable = this.dataSource): Promise<void> {
    await manager.query(`UPDATE purchase_callback_markers SET processed_at = now() WHERE transaction_id = $1 AND id <= $2 AND processed_at IS NULL`, [
      transactionId,
      upTo,
    ]);
  }

  // --- fulfilment (sealed delivery data and its read audit) ---

  /** Stored once: a repeated verification keeps the first copy. */
  async storeFulfilment(manager: Queryable, transactionId: string, kind: 'pin' | 'esim', keyId: string, sealed: string): Promise<void> {
    await manager.query(
      `INSERT INTO purchase_fulfilments (transaction_id, kind, key_id, sealed) VALUES ($1, $2, $3, $4) ON CONFLICT (transaction_id) DO NOTHING`,
      [transactionId, kind, keyId, sealed],
    );
  }

  /**
   * The sealed delivery data of the vendor's own completed transaction; null when the transaction
   * is the vendor's but has none to deliver (not completed, reversed, or no PIN/eSIM data);
   * undefined when it is not the vendor's (or does not exist).
   */
  async sealedFulfilment(manager: Queryable, vendorId: string, transactionId: string): Promise<string | null | undefined> {
    const [row] = await manager.query<{ sealed: string | null }[]>(
      `SELECT CASE WHEN t.status = 'completed' THEN f.sealed END AS sealed
         FROM purchase_transactions t LEFT JOIN purchase_fulfilments f ON f.transaction_id = t.id
        WHERE t.vendor_id = $1 AND t.id = $2`,
      [vendorId, transactionId],
    );
    return row === undefined ? undefined : row.sealed;
  }

  /** Exactly one of the token and the dashboard user is set (a CHECK keeps it so). */
  async recordFulfilmentRead(manager: Queryable, read: { vendorId: string; tokenId: string | null; dashboardUserId: string | null; transactionId: string }): Promise<void> {
    await manager.query(`INSERT INTO purchase_fulfilment_reads (vendor_id, token_id, dashboard_user_id, transaction_id) VALUES ($1, $2, $3, $4)`, [
      read.vendorId,
      read.tokenId,
      read.dashboardUserId,
      read.transactionId,
    ]);
  }
}
