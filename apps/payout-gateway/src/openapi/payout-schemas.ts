import { ApiProperty } from '@nestjs/swagger';
import { apiEnvelopeDecorator, apiErrorsDecorator } from '#common';
import { BATCH_STATUSES, PAYOUT_METHOD_CATALOGUE, PAYOUT_METHODS, PAYOUT_STATUS_REASONS, PAYOUT_STATUSES } from '#payout';
import { PAYOUT_ENVELOPE } from '../http/payout-envelope.js';

/** Response shapes of the payout contract, for the OpenAPI document only (services return plain views). */

export class DeliverySchema {
  @ApiProperty({ type: String, nullable: true, description: 'Collection PIN or voucher PIN' })
  pin: string | null;
  @ApiProperty({ type: String, nullable: true })
  serial: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Voucher redemption instructions' })
  instructions: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  expires_at: string | null;
}

export class PayoutSchema {
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

export class PayoutValidationSchema {
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

export class BatchValidationSchema {
  @ApiProperty({
    enum: ['create', 'replay'],
    description: '`create`: the real call would reserve the whole batch and queue its items; `replay`: it would answer the batch already made with this reference (nothing new)',
  })
  outcome: string;
  @ApiProperty({ example: 'batch-2026-11-24' })
  reference: string;
  @ApiProperty({ type: 'integer', example: 2 })
  item_count: number;
  @ApiProperty({ example: '350.00' })
  total_amount: string;
  @ApiProperty({ example: '10.00', description: 'The fees the real call would snapshot' })
  total_fee: string;
  @ApiProperty({ example: '360.00', description: 'Every item\'s amount plus fee: what the real call reserves, all or nothing' })
  total_hold: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ type: String, nullable: true, example: '9640.00', description: '`create`: the available balance once the whole batch is held, as it stands now; `replay`: null' })
  available_after: string | null;
  @ApiProperty({
    type: [PayoutValidationSchema],
    description: "Each item in request order, with the batch's outcome; on `create` an item's `available_after` is the balance once it and the items before it are held",
  })
  payouts: PayoutValidationSchema[];
}

export class BatchSchema {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'batch-2026-11-24', description: "The vendor's own batch reference" })
  reference: string;
  @ApiProperty({
    enum: BATCH_STATUSES,
    description:
      'Derived from the items: processing while any item is pending; then needs_review if any needs review; cancelled if all were cancelled; ' +
      'completed if all are paid; otherwise completed_with_failures',
  })
  status: string;
  @ApiProperty({ example: '15000.00' })
  total_amount: string;
  @ApiProperty({ example: '500.00' })
  total_fee: string;
  @ApiProperty()
  item_count: number;
  @ApiProperty({ type: [PayoutSchema] })
  payouts: PayoutSchema[];
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
}

export class AccountSchema {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'Demo vendor' })
  name: string;
  @ApiProperty({ example: '10000.00', description: 'Must cover payout amount plus the effective fee; negative while the account is in debt' })
  available: string;
  @ApiProperty({ example: '155.00', description: 'Held for unfinished payouts' })
  reserved: string;
  @ApiProperty({
    example: '0.00',
    description: 'What the vendor owes after a payout released earlier was proved paid by the provider; new payouts and batches answer ACCOUNT_IN_DEBT until funding covers it',
  })
  debt: string;
  @ApiProperty({ example: '5.00' })
  fee_per_payout: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
}

export class MethodSchema {
  @ApiProperty({ enum: PAYOUT_METHODS })
  method: string;
  @ApiProperty({ example: 'Bank A Instant Money' })
  name: string;
  @ApiProperty({ example: '10.00' })
  minimum: string;
  @ApiProperty({ example: '3000.00' })
  maximum: string;
  @ApiProperty({ example: '10.00', description: 'Amounts must be multiples of this step' })
  increment: string;
  @ApiProperty({ description: 'False while the service cannot move money (provider or encryption not configured)' })
  available: boolean;
  @ApiProperty({ example: false })
  requires_bank_account: boolean;
  @ApiProperty({ enum: ['cash', 'bank', 'voucher'] })
  kind: string;
  @ApiProperty({ type: String, nullable: true, enum: ['pin'], example: 'pin', description: 'null for bank transfers' })
  delivery: string | null;
  @ApiProperty({ example: '5.00', description: 'Effective fee in ZAR' })
  fee: string;
}

/** `{success: true, data: <schema>}` (or an array of it; `null`: data is null). */
export const ApiEnvelope = apiEnvelopeDecorator(PAYOUT_ENVELOPE);

/** Error answers by status, each listing its codes (the catalogue fixes status and message per code). */
export const ApiPayoutErrors = apiErrorsDecorator(PAYOUT_ENVELOPE);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * A bank method (`rtc_eft`) pays into a bank account, so its recipient must carry one (the API
 * answers 422 on `recipient.bank_account` otherwise); the decorators can only mark it optional.
 */
export function refinePayoutSchemas(schemas: Record<string, Json>): void {
  const bankMethods = Object.values(PAYOUT_METHOD_CATALOGUE)
    .filter((definition) => definition.requiresBankAccount)
    .map((definition) => definition.method);
  schemas.PayoutRequest.if = { type: 'object', required: ['method'], properties: { method: { enum: bankMethods } } };
  schemas.PayoutRequest.then = {
    type: 'object',
    properties: { recipient: { type: 'object', required: ['bank_account'], properties: { bank_account: { $ref: '#/components/schemas/BankAccount' } } } },
  };
}
