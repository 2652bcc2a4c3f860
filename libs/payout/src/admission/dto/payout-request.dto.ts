import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsEmail, IsIn, IsISO31661Alpha2, IsObject, IsOptional, IsString, Length, Matches, ValidateNested } from 'class-validator';
import { IsCleanText } from '#common';
import { PAYOUT_METHODS } from '../../model/payout-method-catalogue.js';
import {
  BANK_ACCOUNT_NUMBER_PATTERN,
  BRANCH_CODE_PATTERN,
  PAYOUT_AMOUNT_PATTERN,
  PAYOUT_PHONE_PATTERN,
  PAYOUT_REFERENCE_PATTERN,
  RECIPIENT_ID_TYPES,
} from '../../model/payout-field-rules.js';
import type { BankAccountInput, PayoutMetadata, PayoutRequestInput, RecipientInput } from '../../model/payout-request.js';
import { IsDateOfBirth, IsFlatMetadata, IsOnMethodIncrement, IsRecipientIdNumber } from './payout-validators.js';

const ALPHA_2 = /^[A-Z]{2}$/;

export class BankAccountDto implements BankAccountInput {
  @ApiProperty({ example: 'Bank A', maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @IsCleanText()
  bank_name: string;

  @ApiProperty({ example: '62001234567', pattern: BANK_ACCOUNT_NUMBER_PATTERN.source, description: '6 to 16 digits' })
  @IsString()
  @Matches(BANK_ACCOUNT_NUMBER_PATTERN, { message: 'account_number must be 6 to 16 digits' })
  account_number: string;

  @ApiProperty({ example: 'T Mokoena', maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @IsCleanText()
  account_name: string;

  @ApiProperty({ example: '250655', pattern: BRANCH_CODE_PATTERN.source, description: 'Universal branch code; no bank id is needed' })
  @IsString()
  @Matches(BRANCH_CODE_PATTERN, { message: 'branch_code must be the 6-digit universal branch code' })
  branch_code: string;
}

export class RecipientDto implements RecipientInput {
  @ApiProperty({ example: 'Thabo', maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @IsCleanText()
  first_name: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @IsCleanText()
  middle_name?: string | null;

  @ApiProperty({ example: 'Mokoena', maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @IsCleanText()
  surname: string;

  @ApiProperty({ example: '27821234567', pattern: PAYOUT_PHONE_PATTERN.source, description: '27 and nine digits; the delivery SMS goes here on cash rails' })
  @IsString()
  @Matches(PAYOUT_PHONE_PATTERN, { message: 'phone must have the form 27XXXXXXXXX (27 and nine digits)' })
  phone: string;

  @ApiProperty({ enum: RECIPIENT_ID_TYPES })
  @IsIn(RECIPIENT_ID_TYPES, { message: `id_type must be one of: ${RECIPIENT_ID_TYPES.join(', ')}` })
  id_type: string;

  @ApiProperty({ example: '8001015009087', description: 'RSAID: 13 digits with a real birth date and a valid checksum. Passport: 6 to 20 letters or digits.' })
  @IsString()
  @IsRecipientIdNumber()
  id_number: string;

  @ApiProperty({ example: 'ZA', description: 'ISO 3166-1 alpha-2' })
  @IsString()
  @Matches(ALPHA_2, { message: 'country_of_issue must be an ISO 3166-1 alpha-2 code in capitals, such as ZA' })
  @IsISO31661Alpha2({ message: 'country_of_issue must be an ISO 3166-1 alpha-2 country code' })
  country_of_issue: string;

  @ApiProperty({ example: 'ZA', description: 'ISO 3166-1 alpha-2' })
  @IsString()
  @Matches(ALPHA_2, { message: 'nationality must be an ISO 3166-1 alpha-2 code in capitals, such as ZA' })
  @IsISO31661Alpha2({ message: 'nationality must be an ISO 3166-1 alpha-2 country code' })
  nationality: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'thabo@example.com' })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address' })
  email?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '1980-01-01', description: 'Stored for regulatory records; never sent to a provider' })
  @IsOptional()
  @IsDateOfBirth()
  date_of_birth?: string | null;

  @ApiPropertyOptional({ type: BankAccountDto, nullable: true, description: 'Required for rtc_eft only' })
  @IsOptional()
  @IsObject({ message: 'bank_account must be an object' })
  @ValidateNested()
  @Type(() => BankAccountDto)
  bank_account?: BankAccountDto | null;
}

export class PayoutRequestDto implements PayoutRequestInput {
  @ApiProperty({ example: 'order-1042', pattern: PAYOUT_REFERENCE_PATTERN.source, description: 'Idempotency key, unique per vendor forever' })
  @IsString()
  @Matches(PAYOUT_REFERENCE_PATTERN, { message: 'reference must be 1 to 100 characters: letters, digits and . _ : / -, starting with a letter or digit' })
  reference: string;

  @ApiProperty({ example: '150.00', pattern: PAYOUT_AMOUNT_PATTERN.source, description: 'ZAR, two decimal places, within the method limits of GET /api/v1/methods' })
  @IsString()
  @Matches(PAYOUT_AMOUNT_PATTERN, { message: 'amount must be a decimal string with two places, such as "150.00"' })
  @IsOnMethodIncrement()
  amount: string;

  @ApiProperty({ enum: ['ZAR'] })
  @IsIn(['ZAR'], { message: 'currency must be ZAR' })
  currency: string;

  @ApiProperty({ enum: PAYOUT_METHODS })
  @IsIn(PAYOUT_METHODS, { message: `method must be one of: ${PAYOUT_METHODS.join(', ')}` })
  method: string;

  @ApiProperty({ type: RecipientDto })
  @IsDefined({ message: 'recipient is required' })
  @IsObject({ message: 'recipient must be an object' })
  @ValidateNested()
  @Type(() => RecipientDto)
  recipient: RecipientDto;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], nullable: true },
    description: 'Flat: string, number, boolean or null values (at most 20 keys). Stored and echoed, never forwarded. null is accepted and echoed as null.',
    example: { order_id: '1042', loyalty: true },
  })
  @IsOptional()
  @IsFlatMetadata()
  metadata?: PayoutMetadata | null;
}
