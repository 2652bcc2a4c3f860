import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import { BATCH_STATUSES, type BatchValidation, type BatchView } from '#payout';
import { PayoutSchema, PayoutValidationSchema } from '../payouts/payouts.schemas.js';

export class BatchValidationSchema implements Documents<BatchValidation, BatchValidationSchema> {
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

export class BatchSchema implements Documents<BatchView, BatchSchema> {
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
