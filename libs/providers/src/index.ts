export {
  ProviderError,
  ProviderTimeoutError,
  ProviderNetworkError,
  ProviderHttpError,
  ProviderRejectedError,
  ProviderNotConfiguredError,
} from './provider-errors.js';
export { SecretValue } from './secret-value.js';
export { NOT_FOUND_PROOF_STREAK } from './lookup-proof.js';
export { type PurchaseOutcome, purchaseOutcomeOf } from './purchase/purchase-outcome.js';
export type * from './purchase/purchase-provider.wire.js';
export { REQUIREMENT_GROUPS, type RequirementGroup } from './purchase/requirement-groups.js';
export {
  PurchaseProviderClient,
  type ProductListQuery,
  type ProductPage,
  type IdentifierFields,
  type CreatePurchaseTransaction,
  type PurchaseFulfilment,
  type PurchaseProviderTransaction,
  type PurchaseTransactionLookup,
  type StatementLookupRequest,
  type IdentifierLookupRequest,
} from './purchase/purchase-provider.client.js';
export { type PayoutOutcome, payoutOutcomeOf } from './payout/payout-outcome.js';
export {
  PayoutProviderClient,
  CASH_SEND_RAILS,
  type CashSendRail,
  type PayoutChannel,
  type CashSendSubmission,
  type VoucherSubmission,
  type PayoutDelivery,
  type PayoutProviderPayment,
} from './payout/payout-provider.client.js';
export {
  type SettlementReport,
  type SettlementReportLine,
  type ClosedWithoutLine,
  SettlementReportFormatError,
  settlementLineOf,
} from './settlement/settlement-report.js';
