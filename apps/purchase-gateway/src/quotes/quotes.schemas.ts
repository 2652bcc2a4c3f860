import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import type { QuoteView } from '#purchase';
import { BenefitSchema } from '../catalogue/catalogue.schemas.js';

export class QuoteSchema implements Documents<QuoteView, QuoteSchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 10107 })
  product_id: number;
  @ApiProperty({ example: 1, description: 'The pricing version this quote is pinned to' })
  pricing_version_id: number;
  @ApiProperty({ example: 1260, description: 'ZAR cents charged to the vendor' })
  charge_minor: number;
  @ApiProperty({ enum: ['ZAR'], description: 'The currency of charge_minor' })
  currency: string;
  @ApiProperty({ example: '12.00', description: 'Exact decimal string' })
  destination_amount: string;
  @ApiProperty({ example: 'ZAR' })
  destination_unit: string;
  @ApiProperty({ type: [BenefitSchema] })
  benefits: BenefitSchema[];
  @ApiProperty({ example: 0, description: 'Budget quotes: budget_minor minus charge_minor; otherwise 0' })
  unused_budget_minor: number;
  @ApiProperty({ format: 'date-time', description: 'Five minutes after creation' })
  expires_at: string;
}
