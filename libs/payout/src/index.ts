// model: types, statuses, views, errors and pure rules (no I/O)
export * from './model/payout-errors.js';
export * from './model/ledger-errors.js';
export * from './model/payout-readiness.js';
export * from './model/rsa-id-number.js';
export * from './model/payout-field-rules.js';
export * from './model/payout-method-catalogue.js';
export * from './model/payout-request.js';
export * from './model/payout-record.js';
export * from './model/payout-view.js';
export * from './model/payout-admission-rules.js';
export * from './model/batch-status.js';
export * from './model/batch-view.js';
export * from './model/method-policy.js';
export * from './model/ledger.js';
export * from './model/payout-poll-schedule.js';
// persistence: the only code that holds SQL on the payout tables
export * from './payout-entities.js';
export * from './persistence/payout.repository.js';
export * from './persistence/payout-batch.repository.js';
export * from './persistence/ledger.repository.js';
export * from './persistence/vendor-payout-method.repository.js';
// provider, features
export * from './provider/payout-rails.js';
export * from './methods/payout-methods.service.js';
export * from './ledger/payout-ledger.js';
export * from './ledger/payout-account.service.js';
export * from './admission/dto/payout-validators.js';
export * from './admission/payouts.service.js';
export * from './admission/payout-batches.service.js';
export * from './delivery/payout-delivery.service.js';
export * from './delivery/payout-sms-resend.service.js';
export * from './outcomes/payout-outcomes.js';
export * from './submission/payout-submitter.js';
export * from './verification/payout-status-poller.js';
export * from './sweeper/payout-work-sweeper.js';
export * from './operations/payout-operations.service.js';
export * from './payout-domain.module.js';
