import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import { PAYOUT_METHODS, type MethodView } from '#payout';

export class MethodSchema implements Documents<MethodView, MethodSchema> {
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
