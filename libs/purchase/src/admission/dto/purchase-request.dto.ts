import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { REFERENCE_PATTERN } from '../../model/transaction-reference.js';

export const REFERENCE_MESSAGE = 'reference must be 1 to 128 letters, digits or the characters _ . : -';

export class CreateTransactionBody {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  quote_id: string;

  @ApiProperty({ maxLength: 128, example: 'order-2026-0001', description: 'Your reference, unique per vendor; letters, digits, _ . : -' })
  @IsString()
  @MaxLength(128)
  @Matches(REFERENCE_PATTERN, { message: REFERENCE_MESSAGE })
  reference: string;

  /**
   * The `Idempotency-Key` header, put here by IdempotencyKeyIntoBody before validation so that
   * the header and the body fields are checked together and every problem is answered at once.
   * Not part of the JSON body (no @ApiProperty: the description declares it as a header).
   */
  @IsDefined({ message: 'Idempotency-Key header is required: 1 to 128 letters, digits or the characters _ . : -' })
  @IsString({ message: 'Idempotency-Key header must be 1 to 128 letters, digits or the characters _ . : -' })
  @Matches(REFERENCE_PATTERN, { message: 'Idempotency-Key header must be 1 to 128 letters, digits or the characters _ . : -' })
  'Idempotency-Key'?: string;
}
