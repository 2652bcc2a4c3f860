import { ApiProperty } from '@nestjs/swagger';

export class SalesSummarySchema {
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
