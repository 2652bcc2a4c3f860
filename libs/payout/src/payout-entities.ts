import { PayoutBatchEntity } from './persistence/entities/payout-batch.entity.js';
import { PayoutDeliveryReadEntity } from './persistence/entities/payout-delivery-read.entity.js';
import { LedgerEntryEntity } from './persistence/entities/ledger-entry.entity.js';
import { PayoutAccountEntity } from './persistence/entities/payout-account.entity.js';
import { VendorPayoutMethodEntity } from './persistence/entities/vendor-payout-method.entity.js';
import { PayoutEntity } from './persistence/entities/payout.entity.js';
import { PayoutSmsResendEntity } from './persistence/entities/payout-sms-resend.entity.js';

/** Registered in libs/database/src/entities.ts. */
export const PAYOUT_ENTITIES = [
  PayoutAccountEntity,
  LedgerEntryEntity,
  VendorPayoutMethodEntity,
  PayoutBatchEntity,
  PayoutEntity,
  PayoutDeliveryReadEntity,
  PayoutSmsResendEntity,
];
