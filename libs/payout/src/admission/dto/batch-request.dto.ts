import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsString, Matches, ValidateNested } from 'class-validator';
import { MAX_BATCH_ITEMS, type BatchRequestInput } from '../../model/batch-view.js';
import { PAYOUT_REFERENCE_PATTERN } from '../../model/payout-field-rules.js';
import { PayoutRequestDto } from './payout-request.dto.js';

export class BatchRequestDto implements BatchRequestInput {
  @ApiProperty({ example: 'payroll-2026-11', pattern: PAYOUT_REFERENCE_PATTERN.source, description: 'Idempotency key of the batch, unique per vendor' })
  @IsString()
  @Matches(PAYOUT_REFERENCE_PATTERN, { message: 'reference must be 1 to 100 characters: letters, digits and . _ : / -, starting with a letter or digit' })
  reference: string;

  @ApiProperty({ type: [PayoutRequestDto], maxItems: MAX_BATCH_ITEMS, minItems: 1, description: 'Each item carries its own unique reference' })
  @IsArray({ message: 'payouts must be an array' })
  @ArrayMinSize(1, { message: 'payouts must contain at least one payout' })
  @ArrayMaxSize(MAX_BATCH_ITEMS, { message: `payouts must contain at most ${MAX_BATCH_ITEMS} payouts` })
  // ValidateNested alone lets an item that is itself an array through unchecked.
  @IsObject({ each: true, message: 'each payout must be an object' })
  @ValidateNested({ each: true })
  @Type(() => PayoutRequestDto)
  payouts: PayoutRequestDto[];
}
