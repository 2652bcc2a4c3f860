import { PayoutBatchEntity } from './batches/payout-batch.entity.js';
import { PayoutDeliveryReadEntity } from './delivery/payout-delivery-read.entity.js';
import { LedgerEntryEntity } from './ledger/ledger-entry.entity.js';
import { PayoutAccountEntity } from './ledger/payout-account.entity.js';
import { VendorPayoutMethodEntity } from './methods/vendor-payout-method.entity.js';
import { PayoutEntity } from './payouts/payout.entity.js';
import { PayoutSmsResendEntity } from './resend/payout-sms-resend.entity.js';

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
