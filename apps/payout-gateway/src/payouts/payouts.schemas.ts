import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import { PAYOUT_METHODS, PAYOUT_STATUS_REASONS, PAYOUT_STATUSES, type DeliveryView, type PayoutView, type PayoutValidation } from '#payout';

/** Response shapes of the payout contract, for the OpenAPI document only (services return plain views). */

export class DeliverySchema implements Documents<DeliveryView, DeliverySchema> {
  @ApiProperty({ type: String, nullable: true, description: 'Collection PIN or voucher PIN' })
  pin: string | null;
  @ApiProperty({ type: String, nullable: true })
  serial: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Voucher redemption instructions' })
  instructions: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  expires_at: string | null;
}

export class PayoutSchema implements Documents<PayoutView, PayoutSchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'order-1042', description: "The vendor's own reference" })
  reference: string;
  @ApiProperty({ enum: PAYOUT_STATUSES, description: 'Only `paid` completes a withdrawal' })
  status: string;
  @ApiProperty({
    type: String,
    enum: PAYOUT_STATUS_REASONS,
    nullable: true,
    description:
      'pending: `queued` (batch item waiting), `submitting` or `awaiting_provider`; failed: `provider_rejected` or `not_received_by_provider` (the provider never received it; funds released); reversed: `reversed_by_provider`; ' +
      'needs_review: `outcome_unknown`; cancelled: `cancelled_by_operations`; paid or failed from needs_review: `resolved_by_staff` (two staff members resolved it with the provider\'s or the bank\'s confirmation); paid after it had failed: `paid_after_release` (the provider proved it paid; amount and fee were debited again); null otherwise',
  })
  status_reason: string | null;
  @ApiProperty({ enum: PAYOUT_METHODS })
  method: string;
  @ApiProperty({ example: '150.00' })
  amount: string;
  @ApiProperty({ example: '5.00', description: 'Snapshotted at creation and reserved with the amount' })
  fee: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ example: 'GW_PO_8F14E45FCEEA4E3A9D1B2C3D4E5F6A7B', description: 'Sent to the provider; statement narration for rtc_eft' })
  merchant_reference: string;
  @ApiProperty({ type: String, nullable: true, description: "The provider's id; for vouchers the voucher gateway's transaction UUID" })
  provider_reference: string | null;
  @ApiProperty({ type: DeliverySchema, nullable: true, description: 'Only for a token with payouts:delivery and a paid payout with codes; reads are audited' })
  delivery: DeliverySchema | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'Echoed as sent: null when sent as null, {} when absent' })
  metadata: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  paid_at: string | null;
}

export class PayoutValidationSchema implements Documents<PayoutValidation, PayoutValidationSchema> {
  @ApiProperty({ enum: ['create', 'replay'], description: '`create`: the real call would reserve and submit a new payout; `replay`: it would answer the payout already made with this reference (nothing new)' })
  outcome: string;
  @ApiProperty({ example: 'order-1042' })
  reference: string;
  @ApiProperty({ enum: PAYOUT_METHODS })
  method: string;
  @ApiProperty({ example: '150.00' })
  amount: string;
  @ApiProperty({ example: '5.00', description: 'The fee the real call would snapshot' })
  fee: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ example: '155.00', description: 'Amount plus fee: what the real call reserves' })
  hold: string;
  @ApiProperty({ type: String, nullable: true, example: '9845.00', description: '`create`: the available balance once the hold is taken, as it stands now; `replay`: null' })
  available_after: string | null;
}
