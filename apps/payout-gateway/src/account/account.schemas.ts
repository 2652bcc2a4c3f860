import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import type { AccountView } from '#payout';

export class AccountSchema implements Documents<AccountView, AccountSchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'Demo vendor' })
  name: string;
  @ApiProperty({ example: '10000.00', description: 'Must cover payout amount plus the effective fee; negative while the account is in debt' })
  available: string;
  @ApiProperty({ example: '155.00', description: 'Held for unfinished payouts' })
  reserved: string;
  @ApiProperty({
    example: '0.00',
    description: 'What the vendor owes after a payout released earlier was proved paid by the provider; new payouts and batches answer ACCOUNT_IN_DEBT until funding covers it',
  })
  debt: string;
  @ApiProperty({ example: '5.00' })
  fee_per_payout: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
}
