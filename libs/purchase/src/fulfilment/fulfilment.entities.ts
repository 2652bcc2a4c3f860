import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** PIN or eSIM delivery data, AES-256-GCM encrypted; `key_id` names the key so keys can rotate. */
@Entity('purchase_fulfilments')
export class FulfilmentEntity {
  @PrimaryColumn({ name: 'transaction_id', type: 'uuid' })
  transactionId: string;

  @Column({ type: 'text' })
  kind: 'pin' | 'esim';

  /** Key that sealed it; also inside `sealed`, kept here so staff can find rows to re-encrypt after a rotation. */
  @Column({ name: 'key_id', type: 'text' })
  keyId: string;

  /** FieldEncryption format `v1:{keyId}:{iv}:{tag}:{ciphertext}`, bound to the transaction id. */
  @Column({ type: 'text' })
  sealed: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** Audit of every fulfilment read: which token (or dashboard user) of which vendor read which transaction, when. */
@Entity('purchase_fulfilment_reads')
export class FulfilmentReadEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  /** Null when a dashboard user revealed it (then dashboardUserId is set; a CHECK keeps exactly one). */
  @Column({ name: 'token_id', type: 'uuid', nullable: true })
  tokenId: string | null;

  @Column({ name: 'dashboard_user_id', type: 'uuid', nullable: true })
  dashboardUserId: string | null;

  @Column({ name: 'transaction_id', type: 'uuid' })
  transactionId: string;

  @Column({ name: 'read_at', type: 'timestamptz' })
  readAt: Date;
}
