import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption, NotFoundError } from '#common';
import type { PurchaseFulfilment } from '#providers';
import { FulfilmentUnavailableError } from '../model/purchase-errors.js';
import { isUuid } from '../model/uuid-pattern.js';
import { TransactionEvidenceRepository } from '../persistence/transaction-evidence.repository.js';

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
export class PurchaseFulfilmentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly encryption: FieldEncryption,
    private readonly transactions: TransactionEvidenceRepository,
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
    await this.transactions.storeFulfilment(manager, transactionId, stored.kind, sealed.split(':')[1], sealed);
  }

  /**
   * The vendor's own completed transaction's delivery data, with an audit row written in the
   * same database transaction: no audit, no data. 404 NOT_FOUND for an id that is not the
   * vendor's; 409 FULFILMENT_UNAVAILABLE for the vendor's transaction with nothing to deliver
   * (not completed, reversed, or a product without PIN/eSIM data).
   */
  async read(reader: FulfilmentReader, transactionId: string): Promise<FulfilmentView> {
    if (!isUuid(transactionId)) throw new NotFoundError('transaction');
    return this.dataSource.transaction(async (manager) => {
      const sealed = await this.transactions.sealedFulfilment(manager, reader.vendorId, transactionId);
      if (sealed === undefined) throw new NotFoundError('transaction');
      if (sealed === null) throw new FulfilmentUnavailableError();
      const stored = this.encryption.decryptJson<StoredFulfilment>(sealed, sealingContext(transactionId));
      await this.transactions.recordFulfilmentRead(manager, {
        vendorId: reader.vendorId,
        tokenId: reader.dashboardUserId === undefined ? reader.tokenId : null,
        dashboardUserId: reader.dashboardUserId ?? null,
        transactionId,
      });
      return { transaction_id: transactionId, ...stored };
    });
  }
}

/** Associated data: a sealed value copied onto another transaction fails to open. */
function sealingContext(transactionId: string): string {
  return `purchase-fulfilment:${transactionId}`;
}
