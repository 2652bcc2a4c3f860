import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** An accepted POST /transactions, keyed by (vendor, Idempotency-Key); a replay must match its quote and reference. */
export interface StoredIdempotencyKey {
  quote_id: string;
  reference: string;
  transaction_id: string;
}

/** `purchase_idempotency_keys`: written and read only inside the admission's database transaction. */
@Injectable()
export class IdempotencyKeysRepository {
  /**
   * Claims the key for a new transaction; false when it was claimed before. A concurrent request
   * with the same key blocks here until the first commits or rolls back.
   */
  async claim(manager: Pick<EntityManager, 'query'>, vendorId: string, key: string, claim: StoredIdempotencyKey): Promise<boolean> {
    const claimed = await manager.query<unknown[]>(
      `INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING transaction_id`,
      [vendorId, key, claim.quote_id, claim.reference, claim.transaction_id],
    );
    return claimed.length > 0;
  }

  async find(manager: Pick<EntityManager, 'query'>, vendorId: string, key: string): Promise<StoredIdempotencyKey> {
    const [stored] = await manager.query<StoredIdempotencyKey[]>(
      `SELECT quote_id, reference, transaction_id FROM purchase_idempotency_keys WHERE vendor_id = $1 AND idempotency_key = $2`,
      [vendorId, key],
    );
    return stored;
  }
}
