import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type LedgerEntryKind = 'fund' | 'reserve' | 'settle' | 'release' | 'reverse';

/** Append-only (a trigger refuses UPDATE, DELETE and TRUNCATE); each kind has a fixed effect on the balances. */
@Entity('ledger_entries')
export class LedgerEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ type: 'text' })
  kind: LedgerEntryKind;

  @Column({ name: 'amount_cents', type: 'bigint' })
  amountCents: string;

  @Column({ name: 'available_delta_cents', type: 'bigint' })
  availableDeltaCents: string;

  @Column({ name: 'reserved_delta_cents', type: 'bigint' })
  reservedDeltaCents: string;

  @Column({ name: 'payout_id', type: 'uuid', nullable: true })
  payoutId: string | null;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
