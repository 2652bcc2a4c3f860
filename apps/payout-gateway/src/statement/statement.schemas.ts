import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import { STATEMENT_CATEGORIES, type StatementLineView, type StatementSummaryView, type CursorPage } from '#payout';

export class StatementLineSchema implements Documents<StatementLineView, StatementLineSchema> {
  @ApiProperty({ example: '48213', description: 'Stable id of the line: the ledger entry id, with `-fee` for the fee line of a settlement' })
  id: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-24T08:00:01.120Z' })
  created_at: string;
  @ApiProperty({ enum: STATEMENT_CATEGORIES, example: 'payout_settled' })
  category: string;
  @ApiProperty({
    enum: ['fund', 'reserve', 'settle', 'release', 'reverse', 'resettle', 'adjust_debit', 'adjust_credit'],
    example: 'settle',
    description: 'The ledger movement: `resettle` is a payout the provider proved paid after it had been released; `adjust_debit`/`adjust_credit` a correction by operations',
  })
  kind: string;
  @ApiProperty({ example: '150.00', description: 'What moved, unsigned' })
  amount: string;
  @ApiProperty({ example: '0.00', description: 'Signed change of `available`' })
  available_change: string;
  @ApiProperty({ example: '-150.00', description: 'Signed change of `reserved`' })
  reserved_change: string;
  @ApiProperty({ example: '9845.00', description: '`available` right after this line' })
  available_after: string;
  @ApiProperty({ example: '5.00', description: '`reserved` right after this line' })
  reserved_after: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', example: '8f14e45f-ceea-4e3a-9d1b-2c3d4e5f6a7b' })
  payout_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'order-1042', description: "The payout's reference; null for funding and adjustments without a payout" })
  payout_reference: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: "The batch's reference when the payout was a batch item" })
  batch_reference: string | null;
}

export class StatementPageSchema implements Documents<CursorPage<StatementLineView>, StatementPageSchema> {
  @ApiProperty({ type: [StatementLineSchema] })
  items: StatementLineSchema[];
  @ApiProperty({ example: 50 })
  per_page: number;
  @ApiProperty({ type: String, nullable: true, example: 'czE6OTY0MjY', description: 'Pass as `cursor` for the next page; null on the last page' })
  next_cursor: string | null;
}

export class StatementBalancesSchema implements Documents<StatementSummaryView['opening'], StatementBalancesSchema> {
  @ApiProperty({ example: '10000.00' })
  available: string;
  @ApiProperty({ example: '0.00' })
  reserved: string;
}

export class StatementCategoryTotalSchema implements Documents<StatementSummaryView['categories'][number], StatementCategoryTotalSchema> {
  @ApiProperty({ enum: STATEMENT_CATEGORIES })
  category: string;
  @ApiProperty({ example: 3, description: 'Lines of this category in the range' })
  count: number;
  @ApiProperty({ example: '-450.00' })
  available_change: string;
  @ApiProperty({ example: '0.00' })
  reserved_change: string;
}

export class StatementSummarySchema implements Documents<StatementSummaryView, StatementSummarySchema> {
  @ApiProperty({ type: String, nullable: true, format: 'date', example: '2026-11-24' })
  date_from: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date', example: '2026-11-24' })
  date_to: string | null;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ type: StatementBalancesSchema, description: 'Balances before the first day' })
  opening: StatementBalancesSchema;
  @ApiProperty({ type: StatementBalancesSchema, description: 'opening + the sum of every category: balances at the end of the last day' })
  closing: StatementBalancesSchema;
  @ApiProperty({ type: [StatementCategoryTotalSchema], description: 'Every category, in a fixed order, zero when nothing moved' })
  categories: StatementCategoryTotalSchema[];
}
