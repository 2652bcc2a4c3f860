// model: types, statuses, views, errors and pure rules
export * from './model/purchase-errors.js';
export * from './model/uuid-pattern.js';
export * from './model/catalogue-types.js';
export * from './model/catalogue-views.js';
export * from './model/quote-view.js';
export * from './model/transaction-status.js';
export * from './model/transaction-view.js';
export * from './model/transaction-record.js';
export * from './model/transaction-reference.js';
export * from './model/purchase-timings.js';
export * from './model/spend-limits.js';
export * from './model/purchase-statement.js';
export * from './model/admission-refusals.js';
export * from './model/lookup-views.js';
// persistence: the entity list (the repositories stay inside the lib: callers use the services)
export * from './purchase-entities.js';
// features
export * from './catalogue/purchase-catalogue-sync.service.js';
export * from './catalogue/purchase-catalogue.service.js';
export * from './catalogue/catalogue-read-cache.js';
export * from './catalogue/purchase-pricing.service.js';
export * from './catalogue/purchase-readiness.js';
export * from './admission/purchase-quote.service.js';
export * from './admission/purchase-spend-controls.service.js';
export * from './admission/purchase-admission.service.js';
export * from './admission/admission-clock.js';
export * from './submission/purchase-submission.service.js';
export * from './submission/purchase-submission-claims.service.js';
export * from './verification/purchase-verification.service.js';
export * from './verification/purchase-check-claims.service.js';
export * from './verification/purchase-callback-claims.service.js';
export * from './verification/purchase-review.service.js';
export * from './verification/purchase-callback.service.js';
export * from './verification/purchase-lookups.service.js';
export * from './outcomes/purchase-outcome.types.js';
export * from './outcomes/purchase-outcomes.service.js';
export * from './outcomes/purchase-fulfilment.service.js';
export * from './sweeper/purchase-sweeper.service.js';
export * from './reports/purchase-sales-summary.service.js';
export * from './reports/purchase-statement.service.js';
export * from './reports/purchase-query.service.js';
export * from './settlement/purchase-settlement.service.js';
// request DTOs (class-validator): the gateway validates with them
export * from './dto/pagination.dto.js';
export * from './dto/optional-id.js';
export * from './dto/string-map.validator.js';
export * from './admission/dto/purchase-request.dto.js';
export * from './admission/dto/quote-request.dto.js';
export * from './catalogue/dto/product-list.dto.js';
export * from './verification/dto/lookup-request.dto.js';
export * from './reports/dto/transaction-list.dto.js';
export * from './reports/dto/statement-query.dto.js';
// modules
export * from './purchase-domain.module.js';
export * from './purchase-worker.module.js';
