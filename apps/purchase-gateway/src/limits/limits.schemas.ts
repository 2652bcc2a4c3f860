import { ApiProperty } from '@nestjs/swagger';
import type { Documents } from '#common';
import type { LimitsView } from '#purchase';

export class LimitsSchema implements Documents<LimitsView, LimitsSchema> {
  @ApiProperty({ description: 'False until staff set every spend control; purchases answer SPEND_CONTROLS_NOT_CONFIGURED meanwhile' })
  configured: boolean;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ format: 'date', description: 'Africa/Johannesburg day the allowance figures are for' })
  day: string;
  @ApiProperty({ type: Number, nullable: true, description: 'ZAR cents of charges admissible per Africa/Johannesburg day' })
  daily_cap_minor: number | null;
  @ApiProperty({ description: 'ZAR cents admitted today, less charges of verifiably failed purchases (reversals do not give allowance back)' })
  used_today_minor: number;
  @ApiProperty({ type: Number, nullable: true })
  remaining_today_minor: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Largest charge_minor of one purchase' })
  transaction_max_minor: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'At most this many purchases per rolling window' })
  velocity_count: number | null;
  @ApiProperty({ type: Number, nullable: true })
  velocity_window_seconds: number | null;
  @ApiProperty()
  purchases_paused: boolean;
  @ApiProperty({ type: String, nullable: true, enum: ['global', 'vendor', null] })
  paused_scope: string | null;
}
