import { ApiProperty } from '@nestjs/swagger';
import { PageOf, type Documents } from '#common';
import type { PurchaseStatementPage, SalesSummaryView } from '#purchase';

export class SalesSummarySchema implements Documents<SalesSummaryView, SalesSummarySchema> {
  @ApiProperty({ type: String, nullable: true, format: 'date' })
  date_from: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date' })
  date_to: string | null;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ description: 'Verified sales whose completion falls in the period, including those reversed since' })
  completed_count: number;
  @ApiProperty({ description: 'Gross selling value (charge_minor) of those sales, ZAR cents' })
  completed_gross_minor: number;
  @ApiProperty({ description: 'Of those sales, the ones reversed since (by original completion date)' })
  reversed_count: number;
  @ApiProperty()
  reversed_gross_minor: number;
  @ApiProperty({ description: 'completed_gross_minor − reversed_gross_minor' })
  net_minor: number;
  @ApiProperty({ description: 'Pending transactions admitted in the period' })
  pending_count: number;
  @ApiProperty({ description: 'Transactions in review admitted in the period' })
  review_count: number;
}

export class PurchaseStatementRowSchema implements Documents<PurchaseStatementPage['items'][number], PurchaseStatementRowSchema> {
  @ApiProperty({ example: '2026-11-24', description: 'YYYY-MM-DD (period=day) or YYYY-MM (period=month), Africa/Johannesburg, of the verified completion' })
  period: string;
  @ApiProperty({ example: 1201 })
  product_id: number;
  @ApiProperty({ example: 'Airtime R10-R1000' })
  product_name: string;
  @ApiProperty({ example: 12 })
  operator_id: number;
  @ApiProperty({ example: 'Vodacom South Africa' })
  operator_name: string;
  @ApiProperty({ example: 42, description: 'Sales verified as completed in the period, including those reversed since' })
  completed_count: number;
  @ApiProperty({ example: 126000, description: 'What the vendor was charged for them, ZAR cents' })
  completed_gross_minor: number;
  @ApiProperty({ example: 1, description: 'Of those sales, the ones reversed since (by original completion date)' })
  reversed_count: number;
  @ApiProperty({ example: 3000 })
  reversed_gross_minor: number;
  @ApiProperty({ example: 123000, description: 'completed_gross_minor − reversed_gross_minor' })
  net_minor: number;
}

export class PurchaseStatementPageSchema extends PageOf(PurchaseStatementRowSchema, { page: 1, total: 1, last_page: 1 }) implements Documents<PurchaseStatementPage, PurchaseStatementPageSchema> {}
