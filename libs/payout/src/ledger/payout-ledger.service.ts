import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { formatCents, type Cents } from '#money';
import { AccountInDebtError, InsufficientFundsError, LedgerInvariantError } from '../model/ledger-errors.js';
import { debtOf, type AccountBalances, type LedgerCorrection, type LedgerCorrectionEntry, type LedgerDiscrepancy, type PayoutHold } from '../model/ledger.js';
import { LedgerRepository } from '../persistence/ledger.repository.js';

/**
 * The prefunded account as TigerBeetle-style two-phase transfers: `reserve` holds amount + fee
 * when a payout is created, `settle` posts it when the provider paid, `release` voids it when the
 * payout failed or was cancelled, and `reverse` returns a paid payout's money. Corrections after
 * the fact (`correct`: resettle, adjust_debit, adjust_credit) are entries too. Every movement is
 * an append-only entry written in the caller's transaction together with a guarded balance
 * update (LedgerRepository.move), so balances equal the entries' sums and concurrent payouts can
 * never overdraw.
 */
@Injectable()
export class PayoutLedgerService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: LedgerRepository,
  ) {}

  /** Credits the account (ops `payout:fund`). */
  async fund(vendorId: string, amountCents: Cents, note: string | null = null, within?: EntityManager): Promise<AccountBalances> {
    if (typeof amountCents !== 'bigint' || amountCents <= 0n) throw new ValidationFailedError({ amount: ['amount must be positive'] });
    // In the caller's transaction when given (an approved four-eyes funding: approval and credit commit together).
    const run = (work: (manager: EntityManager) => Promise<AccountBalances>) => (within ? work(within) : this.dataSource.transaction(work));
    return run(async (manager) => {
      await this.ensureAccount(manager, vendorId);
      const account = await this.accounts.move(manager, vendorId, 'fund', amountCents, [{ payoutId: null, cents: amountCents }], note);
      if (!account) throw new LedgerInvariantError(`fund: no account for vendor ${vendorId}`);
      return account;
    });
  }

  /** Creates the vendor's account with zero balances if it has none yet. */
  async ensureAccount(manager: EntityManager, vendorId: string): Promise<void> {
    try {
      await this.accounts.ensureAccount(manager, vendorId);
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new NotFoundError('vendor');
      throw error;
    }
  }

  /**
   * Holds every payout's amount + fee, all or nothing: one guarded update for the total, so a
   * balance that does not cover it changes nothing and the caller's transaction rolls back.
   */
  async reserve(manager: EntityManager, vendorId: string, holds: readonly PayoutHold[]): Promise<void> {
    const total = holds.reduce((sum, hold) => sum + hold.cents, 0n);
    const moved = await this.accounts.move(manager, vendorId, 'reserve', total, holds);
    if (!moved) throw await this.refusal(vendorId, manager);
  }

  /**
   * Why a reserve was refused: ACCOUNT_IN_DEBT while `available` is below zero (nothing is paid
   * out until funding covers the debt), else INSUFFICIENT_FUNDS.
   */
  async refusal(vendorId: string, manager: EntityManager = this.dataSource.manager): Promise<AccountInDebtError | InsufficientFundsError> {
    const debt = debtOf(await this.balances(vendorId, manager));
    return debt > 0n ? new AccountInDebtError(formatCents(debt)) : new InsufficientFundsError();
  }

  /**
   * A dry run's funds check (payout and batch validate): the reserve's own rule, `available >=
   * hold` (LedgerRepository's guard on `reserve`), on the balance committed now, taking nothing.
   * Answers the available balance before the hold, or throws the refusal the reserve would give.
   */
  async coveredBalance(vendorId: string, holdCents: Cents): Promise<Cents> {
    const { availableCents } = await this.balances(vendorId);
    if (availableCents < holdCents) throw await this.refusal(vendorId);
    return availableCents;
  }

  /**
   * A correction after the fact (resettle, adjust_debit, adjust_credit) in the caller's
   * transaction: an append-only entry with its reason and source, never an edit. It may take
   * `available` below zero (a debt). Called last in the transaction: it locks the account row.
   */
  async correct(manager: EntityManager, correction: LedgerCorrection): Promise<AccountBalances> {
    if (typeof correction.cents !== 'bigint' || correction.cents <= 0n) throw new LedgerInvariantError(`${correction.kind}: amount must be positive`);
    const account = await this.accounts.correct(manager, correction);
    if (!account) throw new LedgerInvariantError(`${correction.kind}: no account for vendor ${correction.vendorId}`);
    return account;
  }

  /** The provider paid: the held money leaves the account. */
  async settle(manager: EntityManager, vendorId: string, hold: PayoutHold): Promise<void> {
    await this.moveHeld(manager, vendorId, hold, 'settle');
  }

  /** The payout failed or was cancelled: the held money is available again. */
  async release(manager: EntityManager, vendorId: string, hold: PayoutHold): Promise<void> {
    await this.moveHeld(manager, vendorId, hold, 'release');
  }

  /** A paid payout came back: amount and fee return to available. */
  async reverse(manager: EntityManager, vendorId: string, hold: PayoutHold): Promise<void> {
    const moved = await this.accounts.move(manager, vendorId, 'reverse', hold.cents, [hold]);
    if (!moved) throw new LedgerInvariantError(`reverse for payout ${hold.payoutId}: no account for vendor ${vendorId}`);
  }

  /** The correction entries of a vendor, or of one exception, newest first (what staff read on their pages). */
  corrections(of: { vendorId?: string; exceptionId?: string }): Promise<LedgerCorrectionEntry[]> {
    return this.accounts.corrections(of);
  }

  /** Whether the payout's books were corrected after the fact (a `resettle` entry). */
  async wasResettled(manager: EntityManager, payoutId: string): Promise<boolean> {
    return this.accounts.wasResettled(manager, payoutId);
  }

  async balances(vendorId: string, manager: EntityManager = this.dataSource.manager): Promise<AccountBalances> {
    return (await this.accounts.balances(vendorId, manager)) ?? { vendorId, availableCents: 0n, reservedCents: 0n };
  }

  /** Each vendor's balances, in the order of `vendorIds`, read in one query; zero for a vendor without an account. */
  async balancesOf(vendorIds: readonly string[]): Promise<AccountBalances[]> {
    const accounts = new Map((await this.accounts.balancesOf(vendorIds)).map((account) => [account.vendorId, account]));
    return vendorIds.map((vendorId) => accounts.get(vendorId) ?? { vendorId, availableCents: 0n, reservedCents: 0n });
  }

  /**
   * Accounts whose balances differ from their entries' sums, or whose `reserved` differs from
   * the holds of their open (pending, needs_review) payouts. Empty when the books are right.
   */
  async findDiscrepancies(vendorId?: string): Promise<LedgerDiscrepancy[]> {
    return this.accounts.findDiscrepancies(vendorId);
  }

  private async moveHeld(manager: EntityManager, vendorId: string, hold: PayoutHold, kind: 'settle' | 'release'): Promise<void> {
    const moved = await this.accounts.move(manager, vendorId, kind, hold.cents, [hold]);
    if (!moved) throw new LedgerInvariantError(`${kind} for payout ${hold.payoutId}: reserved balance does not hold ${hold.cents} cents`);
  }
}
