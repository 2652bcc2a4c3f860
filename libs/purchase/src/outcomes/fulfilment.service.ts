import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption, NotFoundError } from '#common';
import type { PurchaseFulfilment } from '#providers';
import { isUuid } from '../model/uuid-pattern.js';

/** GET /transactions/{id}/fulfilment. Exactly one of `pin` and `esim` is set. */
export interface FulfilmentView {
  transaction_id: string;
  kind: 'pin' | 'esim';
  pin: { code: string; serial: string } | null;
  esim: { iccid: string; smdp_address: string; activation_code: string; qr_code_payload: string } | null;
}

type StoredFulfilment = Omit<FulfilmentView, 'transaction_id'>;

export interface FulfilmentReader {
  vendorId: string;
  tokenId: string;
  /** Set when a dashboard user reveals it: the audit row then names the user, not a token. */
  dashboardUserId?: string;
}

/** Delivery data: sealed on the way in (worker), opened only for an audited vendor read. */
@Injectable()
export class FulfilmentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly encryption: FieldEncryption,
  ) {}

  /** Stores the provider's delivery data once; a repeated verification keeps the first copy. */
  async store(manager: EntityManager, transactionId: string, fulfilment: PurchaseFulfilment): Promise<void> {
    const stored: StoredFulfilment =
      fulfilment.kind === 'pin'
        ? { kind: 'pin', pin: { code: fulfilment.pin, serial: fulfilment.serial }, esim: null }
        : {
            kind: 'esim',
            pin: null,
            esim: {
              iccid: fulfilment.iccid,
              smdp_address: fulfilment.smdpAddress,
              activation_code: fulfilment.activationCode,
              qr_code_payload: fulfilment.qrCodePayload,
            },
          };
    const sealed = this.encryption.encryptJson(stored, sealingContext(transactionId));
    await manager.query(
      `INSERT INTO purchase_fulfilments (transaction_id, kind, key_id, sealed) VALUES ($1, $2, $3, $4) ON CONFLICT (transaction_id) DO NOTHING`,
      [transactionId, stored.kind, sealed.split(':')[1], sealed],
    );
  }

  /**
   * The vendor's own completed transaction's delivery data, with an audit row written in the
   * same database transaction: no audit, no data. 404 when there is nothing to deliver.
   */
  async read(reader: FulfilmentReader, transactionId: string): Promise<FulfilmentView> {
    if (!isUuid(transactionId)) throw new NotFoundError('fulfilment');
    return this.dataSource.transaction(async (manager) => {
      const [row] = await manager.query(
        `SELECT f.sealed
           FROM purchase_transactions t JOIN purchase_fulfilments f ON f.transaction_id = t.id
          WHERE t.vendor_id = $1 AND t.id = $2 AND t.status = 'completed'`,
        [reader.vendorId, transactionId],
      );
      if (!row) throw new NotFoundError('fulfilment');
      const stored = this.encryption.decryptJson<StoredFulfilment>(row.sealed, sealingContext(transactionId));
      await manager.query(`INSERT INTO purchase_fulfilment_reads (vendor_id, token_id, dashboard_user_id, transaction_id) VALUES ($1, $2, $3, $4)`, [
        reader.vendorId,
        reader.dashboardUserId === undefined ? reader.tokenId : null,
        reader.dashboardUserId ?? null,
        transactionId,
      ]);
      return { transaction_id: transactionId, ...stored };
    });
  }
}

/** Associated data: a sealed value copied onto another transaction fails to open. */
function sealingContext(transactionId: string): string {
  return `purchase-fulfilment:${transactionId}`;
}
