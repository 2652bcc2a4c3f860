import { Inject, Injectable } from '@nestjs/common';
import { DecimalAmount, MoneyError, formatCents, priceRangedDestinationAmount } from '#money';
import { CallbackSender } from '../../callbacks/callback-sender.service.js';
import { JsonBody } from '../../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../../sandbox-options.js';
import { SandboxScheduler } from '../../sandbox-scheduler.js';
import { badRequest, sandboxError } from '../../sandbox-errors.js';
import { testValueSuffix } from '../../test-value-suffix.js';
import { SubmissionWitness } from '../../witness/submission-witness.service.js';
import { REQUIREMENT_GROUPS, type Product } from '../catalogue/purchase-catalogue.data.js';
import { PurchaseCatalogue } from '../catalogue/purchase-catalogue.service.js';
import { firstUnmetRequirement, type IdentifierGroups } from '../requirements.js';
import { issueEsim, issuePin } from './purchase-fulfilment.js';
import {
  PURCHASE_STATUSES,
  purchaseScenarioFor,
  purchaseTransactionView,
  type PurchaseScenario,
  type PurchaseStatus,
  type PurchaseRequest,
  type PurchaseTransaction,
} from './purchase-transaction.js';

const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const FIRST_TRANSACTION_ID = 4_100_000_001;

/** The purchase provider's transactions: auto-confirmed on create, then moved by the test value's scenario. */
@Injectable()
export class PurchaseTransactions {
  private readonly byId = new Map<number, PurchaseTransaction>();
  private readonly idByExternalId = new Map<string, number>();
  /** Creates answered with HTTP 500 that the provider may still carry out later (test value 09). */
  private readonly heldForLateCreation = new Map<string, PurchaseRequest>();
  private nextId = FIRST_TRANSACTION_ID;

  constructor(
    private readonly catalogue: PurchaseCatalogue,
    private readonly witness: SubmissionWitness,
    private readonly scheduler: SandboxScheduler,
    private readonly callbacks: CallbackSender,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  async create(raw: unknown): Promise<PurchaseTransaction> {
    const body = JsonBody.of(raw);
    const externalId = body.requiredString('external_id', EXTERNAL_ID_PATTERN);
    // Everything up to the insert below is synchronous, so two concurrent creates cannot both pass this check.
    const duplicate = this.idByExternalId.has(externalId);
    this.witness.record('external_id', externalId, duplicate);
    if (duplicate) {
      throw sandboxError(409, 'EXTERNAL_ID_ALREADY_USED', 'a transaction with this external_id already exists');
    }
    const request = this.validate(externalId, body);
    const identifiers = request.identifiers.credit_party_identifier;
    const scenario = purchaseScenarioFor(testValueSuffix(identifiers?.mobile_number ?? identifiers?.account_number));
    if (scenario.submission === 'fails_with_500') {
      if (scenario.lateCreation === 'on_request') this.heldForLateCreation.set(externalId, request);
      throw sandboxError(500, 'INTERNAL_ERROR', 'the provider failed before creating the transaction');
    }

    const transaction = this.insert(request, scenario);
    if (scenario.submission === 'hangs') await this.scheduler.hold(this.options.timeoutHangMs);
    return transaction;
  }

  /**
   * Carries out a create that answered HTTP 500 (test value 09) now: the transaction appears
   * and completes like an ordinary one, with its callback. Sandbox control, not a provider API.
   */
  createLate(externalId: string): PurchaseTransaction | undefined {
    const request = this.heldForLateCreation.get(externalId);
    if (!request || this.idByExternalId.has(externalId)) return undefined;
    this.heldForLateCreation.delete(externalId);
    return this.insert(request, { ...purchaseScenarioFor(null) });
  }

  /**
   * The provider's JSON for a read. A transaction whose fulfilment comes late (test value 08)
   * answers its first read after completion without it.
   */
  read(transaction: PurchaseTransaction) {
    const withhold = transaction.status === 'COMPLETED' && transaction.fulfilmentWithheldReads > 0;
    if (withhold) transaction.fulfilmentWithheldReads -= 1;
    return purchaseTransactionView(transaction, { withholdFulfilment: withhold });
  }

  private insert(request: PurchaseRequest, scenario: PurchaseScenario): PurchaseTransaction {
    const transaction: PurchaseTransaction = {
      id: this.nextId++,
      ...request,
      status: 'SUBMITTED',
      createdAt: this.options.clock.now(),
      completedAt: null,
      reversedAt: null,
      declinedAt: null,
      fulfilment: null,
      fulfilmentWithheldReads: scenario.fulfilment === 'late' ? 1 : 0,
    };
    this.byId.set(transaction.id, transaction);
    this.idByExternalId.set(request.externalId, transaction.id);
    this.play(transaction, scenario);
    return transaction;
  }

  get(id: number): PurchaseTransaction | undefined {
    return this.byId.get(id);
  }

  findByExternalId(externalId: string): PurchaseTransaction | undefined {
    const id = this.idByExternalId.get(externalId);
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** Every transaction in creation order (settlement reports; the search lists them newest first). */
  all(): PurchaseTransaction[] {
    return [...this.byId.values()];
  }

  /**
   * Sandbox control: the provider reverses a completed transaction now, long after any watch,
   * and tells nobody (no callback), as a late chargeback does. Only a lookup or the settlement
   * report shows it. Returns undefined when there is no completed transaction to reverse.
   */
  reverseSilently(externalId: string): PurchaseTransaction | undefined {
    const transaction = this.findByExternalId(externalId);
    if (transaction?.status !== 'COMPLETED') return undefined;
    this.move(transaction, 'REVERSED');
    return transaction;
  }

  /**
   * Sandbox control: a transaction still SUBMITTED (test value 05, "stays submitted") gets its
   * final answer now, with no callback, as a provider that answers late would: only a lookup
   * sees it. Returns undefined when there is none or it is already final.
   */
  settleLate(externalId: string, status: 'COMPLETED' | 'DECLINED'): PurchaseTransaction | undefined {
    const transaction = this.findByExternalId(externalId);
    if (transaction?.status !== 'SUBMITTED') return undefined;
    this.move(transaction, status);
    return transaction;
  }

  private play(transaction: PurchaseTransaction, scenario: PurchaseScenario): void {
    const { completeDelayMs, reversalDelayMs, lateStatusDelayMs } = this.options;
    if (scenario.outcome === 'stay_submitted') return;
    if (scenario.outcome === 'decline') {
      this.scheduler.after(completeDelayMs, () => {
        this.move(transaction, 'DECLINED');
        this.notify(transaction, scenario);
      });
      return;
    }
    if (scenario.callbacks === 'ahead_of_status') {
      // The callback says COMPLETED while GET still says SUBMITTED; only a later GET agrees.
      this.scheduler.after(completeDelayMs, () => {
        this.notify(transaction, scenario, 'COMPLETED');
        this.scheduler.after(lateStatusDelayMs, () => this.move(transaction, 'COMPLETED'));
      });
      return;
    }
    this.scheduler.after(completeDelayMs, () => {
      this.move(transaction, 'COMPLETED');
      this.notify(transaction, scenario);
      if (!scenario.reverseAfterCompletion) return;
      this.scheduler.after(reversalDelayMs, () => {
        this.move(transaction, 'REVERSED');
        this.notify(transaction, scenario);
      });
    });
  }

  private move(transaction: PurchaseTransaction, status: PurchaseStatus): void {
    const now = this.options.clock.now();
    transaction.status = status;
    if (status === 'COMPLETED') {
      transaction.completedAt = now;
      if (transaction.product.fulfilment === 'PIN') transaction.fulfilment = issuePin();
      if (transaction.product.fulfilment === 'ESIM') transaction.fulfilment = issueEsim();
    }
    if (status === 'REVERSED') transaction.reversedAt = now;
    if (status === 'DECLINED') transaction.declinedAt = now;
  }

  private notify(transaction: PurchaseTransaction, scenario: PurchaseScenario, status: PurchaseStatus = transaction.status): void {
    if (scenario.callbacks === 'never' || transaction.callbackUrl === null) return;
    this.callbacks.send(transaction.callbackUrl, {
      transaction_id: transaction.id,
      external_id: transaction.externalId,
      status: PURCHASE_STATUSES[status].class.message,
    });
  }

  private validate(externalId: string, body: JsonBody): PurchaseRequest {
    const product = this.catalogue.requestedProduct(body.requiredInteger('product_id'));

    const identifiers: IdentifierGroups = {};
    for (const group of REQUIREMENT_GROUPS) {
      const values = body.optionalStringRecord(group);
      if (values) identifiers[group] = values;
    }
    const unmet = firstUnmetRequirement(product, identifiers);
    if (unmet) throw badRequest('MISSING_REQUIRED_FIELD', `${unmet} does not hold any of the product's required field sets`);

    const callbackUrl = body.optionalString('callback_url', /^https?:\/\/\S+$/) ?? null;
    return { externalId, product, identifiers, callbackUrl, ...this.priceOf(product, body.optionalString('destination_amount')) };
  }

  private priceOf(product: Product, requested: string | undefined): { destinationAmount: string; wholesalePrice: string } {
    try {
      if (product.destination_range && product.wholesale_rate) {
        if (requested === undefined) throw badRequest('MISSING_FIELD', 'destination_amount is required for a ranged product');
        const price = priceRangedDestinationAmount(
          {
            minDestinationAmount: product.destination_range.min,
            maxDestinationAmount: product.destination_range.max,
            destinationStep: product.destination_range.step,
            wholesaleCentsPerDestinationUnit: DecimalAmount.parse(product.wholesale_rate).timesInteger(100n).toString(),
          },
          requested,
          0,
        );
        return { destinationAmount: price.destinationAmount, wholesalePrice: formatCents(price.wholesaleCents) };
      }
      const fixedAmount = product.destination_amount!;
      if (requested !== undefined && !DecimalAmount.parse(requested).equals(DecimalAmount.parse(fixedAmount))) {
        throw badRequest('INVALID_DESTINATION_AMOUNT', `product ${product.id} has the fixed amount ${fixedAmount}`);
      }
      return { destinationAmount: fixedAmount, wholesalePrice: product.wholesale_price! };
    } catch (error) {
      if (error instanceof MoneyError) throw badRequest('INVALID_DESTINATION_AMOUNT', error.message);
      throw error;
    }
  }
}
