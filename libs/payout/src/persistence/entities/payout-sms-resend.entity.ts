import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type SmsResendOutcome = 'sent' | 'rate_limited' | 'provider_refused' | 'provider_unavailable';

/** Every resend-sms request and what came of it; a provider cooldown is remembered here. */
@Entity('payout_sms_resends')
export class PayoutSmsResendEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ name: 'payout_id', type: 'uuid' })
  payoutId: string;

  @Column({ name: 'token_id', type: 'uuid' })
  tokenId: string;

  @Column({ type: 'text' })
  outcome: SmsResendOutcome;

  @Column({ name: 'cooldown_until', type: 'timestamptz', nullable: true })
  cooldownUntil: Date | null;

  @Column({ name: 'requested_at', type: 'timestamptz', default: () => 'now()' })
  requestedAt: Date;
}
