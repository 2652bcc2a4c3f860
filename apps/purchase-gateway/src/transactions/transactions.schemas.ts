import { ApiProperty, PickType } from '@nestjs/swagger';
import { PageOf, type Documents } from '#common';
import { TRANSACTION_STATUSES, type TransactionView, type TransactionValidation, type FulfilmentView, type Page } from '#purchase';

export class TransactionSchema implements Documents<TransactionView, TransactionSchema> {
  @ApiProperty({ format: 'uuid', description: 'Gateway id (also the provider’s external id)' })
  id: string;
  @ApiProperty({ example: 'order-2026-0001' })
  reference: string;
  @ApiProperty({
    enum: TRANSACTION_STATUSES,
    description:
      'pending (admitted; submission or verification under way, or outcome unknown), completed, failed, reversed, review (automatic verification gave up; staff act). Moves: pending → completed | failed | review; review → completed | failed; completed → reversed. Only a verified provider lookup moves it.',
  })
  status: string;
  @ApiProperty({ example: 10107 })
  product_id: number;
  @ApiProperty({ format: 'uuid' })
  quote_id: string;
  @ApiProperty({ example: 1260, description: 'ZAR cents' })
  charge_minor: number;
  @ApiProperty({ enum: ['ZAR'], description: 'The currency of charge_minor' })
  currency: string;
  @ApiProperty({ example: '12.00' })
  destination_amount: string;
  @ApiProperty({ example: 'ZAR' })
  destination_unit: string;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['PROVIDER_DECLINED', 'PROVIDER_REJECTED', 'PROVIDER_NOT_CREATED', 'NOT_SUBMITTED', 'RESOLVED_BY_STAFF', null],
    description: 'Why a transaction failed; null otherwise',
  })
  error_code: string | null;
  @ApiProperty({ example: false, description: 'True while completed with PIN or eSIM data to fetch from /transactions/{id}/fulfilment' })
  fulfilment_available: boolean;
  @ApiProperty({ format: 'date-time', description: 'Admission time' })
  created_at: string;
  @ApiProperty({ format: 'date-time' })
  updated_at: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'Verified completion' })
  completed_at: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  reversed_at: string | null;
}

export class TransactionPageSchema extends PageOf(TransactionSchema) implements Documents<Page<TransactionView>, TransactionPageSchema> {}

/** What the real call would charge and deliver: the transaction's own fields, as the quote fixes them. */
export class TransactionValidationSchema extends PickType(TransactionSchema, ['reference', 'quote_id', 'product_id', 'charge_minor', 'currency', 'destination_amount', 'destination_unit'] as const) implements Documents<TransactionValidation, TransactionValidationSchema> {
  @ApiProperty({
    enum: ['create', 'replay'],
    description: '`create`: the real call would admit a new purchase (202, pending) and count it against the limits; `replay`: it would answer the purchase already made with this Idempotency-Key (nothing new)',
  })
  outcome: string;
  @ApiProperty({ type: TransactionSchema, nullable: true, description: '`replay`: the transaction the real call would answer, in its current state; `create`: null (the real call assigns the id)' })
  transaction: TransactionSchema | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 98740, description: "`create`: ZAR cents of the day's allowance left once this charge is counted, as it stands now; `replay`: null" })
  remaining_today_minor: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 9, description: '`create`: purchases still admissible in the velocity window once this one is counted, as it stands now; `replay`: null' })
  velocity_remaining: number | null;
}

export class PinDeliverySchema implements Documents<NonNullable<FulfilmentView['pin']>, PinDeliverySchema> {
  @ApiProperty({ example: '1234567890123456' })
  code: string;
  @ApiProperty({ example: 'SN000000000001' })
  serial: string;
}

export class EsimDeliverySchema implements Documents<NonNullable<FulfilmentView['esim']>, EsimDeliverySchema> {
  @ApiProperty({ example: '8927000000000000001' })
  iccid: string;
  @ApiProperty({ example: 'smdp.example' })
  smdp_address: string;
  @ApiProperty({ example: 'LPA:1$smdp.example$ABCD-EF01-2345-6789' })
  activation_code: string;
  @ApiProperty({ description: 'Content of the QR code to show the customer' })
  qr_code_payload: string;
}

export class FulfilmentSchema implements Documents<FulfilmentView, FulfilmentSchema> {
  @ApiProperty({ format: 'uuid' })
  transaction_id: string;
  @ApiProperty({ enum: ['pin', 'esim'] })
  kind: string;
  @ApiProperty({ type: PinDeliverySchema, nullable: true })
  pin: PinDeliverySchema | null;
  @ApiProperty({ type: EsimDeliverySchema, nullable: true })
  esim: EsimDeliverySchema | null;
}
