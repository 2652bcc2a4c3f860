import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import { BATCH_STATUSES, type BatchSummaryView, type CursorPage, type PayoutView } from '#payout';
import { PayoutSchema } from '../payouts/payouts.schemas.js';

export class PayoutPageSchema implements Documents<CursorPage<PayoutView>, PayoutPageSchema> {
  @ApiProperty({ type: [PayoutSchema], description: 'Without delivery codes (`delivery` is null): read them per payout' })
  items: PayoutSchema[];
  @ApiProperty({ example: 50 })
  per_page: number;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `cursor` for the next page; null on the last page' })
  next_cursor: string | null;
}

export class BatchSummarySchema implements Documents<BatchSummaryView, BatchSummarySchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'batch-2026-11-24' })
  reference: string;
  @ApiProperty({ enum: BATCH_STATUSES })
  status: string;
  @ApiProperty({ example: '15000.00' })
  total_amount: string;
  @ApiProperty({ example: '500.00' })
  total_fee: string;
  @ApiProperty({ example: 100 })
  item_count: number;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
}

export class BatchPageSchema implements Documents<CursorPage<BatchSummaryView>, BatchPageSchema> {
  @ApiProperty({ type: [BatchSummarySchema], description: 'Batches without their items: GET /batches/{reference} has them' })
  items: BatchSummarySchema[];
  @ApiProperty({ example: 50 })
  per_page: number;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `cursor` for the next page; null on the last page' })
  next_cursor: string | null;
}
