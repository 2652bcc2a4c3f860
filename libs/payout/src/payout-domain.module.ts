import { Module } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';
import { PayoutProviderClient } from '#providers';
import { ReconciliationModule } from '#reconciliation';
import { PayoutBatchRequestService } from './admission/payout-batch-request.service.js';
import { PayoutDeliveryService } from './delivery/payout-delivery.service.js';
import { PayoutAccountService } from './ledger/payout-account.service.js';
import { PayoutLedgerService } from './ledger/payout-ledger.service.js';
import { PayoutMethodsService } from './methods/payout-methods.service.js';
import { PayoutReadiness } from './model/payout-readiness.js';
import { LedgerRepository } from './persistence/ledger.repository.js';
import { PayoutBatchRepository } from './persistence/payout-batch.repository.js';
import { PayoutRepository } from './persistence/payout.repository.js';
import { PayoutEvidenceRepository } from './persistence/payout-evidence.repository.js';
import { PayoutOutcomeRepository } from './persistence/payout-outcome.repository.js';
import { PayoutStaffRepository } from './persistence/payout-staff.repository.js';
import { PayoutWorkRepository } from './persistence/payout-work.repository.js';
import { PayoutStatusMoves } from './outcomes/payout-status-moves.js';
import { VendorPayoutMethodRepository } from './persistence/vendor-payout-method.repository.js';
import { PayoutAdmissionService } from './admission/payout-admission.service.js';
import { PayoutRequestService } from './admission/payout-request.service.js';
import { PayoutAnswerSignals } from './persistence/payout-answer-signals.js';
import { PayoutSmsResendService } from './delivery/payout-sms-resend.service.js';
import { PayoutOperationsService } from './operations/payout-operations.service.js';
import { PayoutOutcomesService } from './outcomes/payout-outcomes.service.js';
import { PayoutPollSchedule } from './model/payout-poll-schedule.js';
import { createPayoutProviderClient, PayoutRails } from './provider/payout-rails.js';
import { PayoutStatusPollService } from './verification/payout-status-poll.service.js';
import { PayoutReviewService } from './verification/payout-review.service.js';
import { PayoutSubmissionService } from './submission/payout-submission.service.js';
import { StatementRepository } from './persistence/statement.repository.js';
import { PayoutStatementService } from './statement/payout-statement.service.js';
import { PayoutListRepository } from './persistence/payout-list.repository.js';
import { PayoutListsService } from './lists/payout-lists.service.js';
import { PayoutSettlementService } from './settlement/payout-settlement.service.js';

const SERVICES = [
  FieldEncryption,
  PayoutReadiness,
  PayoutRepository,
  PayoutOutcomeRepository,
  PayoutEvidenceRepository,
  PayoutWorkRepository,
  PayoutStaffRepository,
  PayoutBatchRepository,
  LedgerRepository,
  VendorPayoutMethodRepository,
  PayoutLedgerService,
  PayoutAccountService,
  PayoutMethodsService,
  PayoutRails,
  PayoutPollSchedule,
  PayoutStatusMoves,
  PayoutOutcomesService,
  PayoutSubmissionService,
  PayoutStatusPollService,
  PayoutReviewService,
  PayoutAnswerSignals,
  PayoutAdmissionService,
  PayoutRequestService,
  PayoutBatchRequestService,
  PayoutDeliveryService,
  PayoutSmsResendService,
  PayoutOperationsService,
  StatementRepository,
  PayoutStatementService,
  PayoutListRepository,
  PayoutListsService,
  PayoutSettlementService,
];

/**
 * The payout domain as plain services, without HTTP: the payout gateway's controllers, the
 * worker's job handlers and the ops CLI all use it. Needs ConfigModule and the TypeORM
 * connection from the importing app.
 */
@Module({
  imports: [VendorAccountsModule, ReconciliationModule],
  providers: [{ provide: PayoutProviderClient, inject: [GatewayEnv], useFactory: createPayoutProviderClient }, ...SERVICES],
  exports: [PayoutProviderClient, ...SERVICES],
})
export class PayoutDomainModule {}
