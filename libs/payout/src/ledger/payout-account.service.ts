import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { formatCents, type Cents } from '#money';
import { debtOf, type PayoutAccountSnapshot } from '../model/ledger.js';
import { LedgerRepository } from '../persistence/ledger.repository.js';
import { PayoutLedgerService } from './payout-ledger.service.js';

/** `GET /api/v1/account` (payout contract, Account). */
export interface AccountView {
  id: string;
  name: string;
  /** Negative while the account is in debt. */
  available: string;
  reserved: string;
  /** What the vendor owes (`-available` when negative, else 0.00): new payouts are refused while it is above zero. */
  debt: string;
  fee_per_payout: string;
  currency: 'ZAR';
}

@Injectable()
export class PayoutAccountService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: PayoutLedgerService,
    private readonly accounts: LedgerRepository,
  ) {}

  /** The vendor's account, created with zero balances on first use. */
  async getAccount(vendorId: string): Promise<PayoutAccountSnapshot> {
    await this.ledger.ensureAccount(this.dataSource.manager, vendorId);
    const account = await this.accounts.snapshot(vendorId);
    if (!account) throw new NotFoundError('account');
    return account;
  }

  async getAccountView(vendorId: string): Promise<AccountView> {
    const account = await this.getAccount(vendorId);
    return {
      id: account.id,
      name: account.vendorName,
      available: formatCents(account.availableCents),
      reserved: formatCents(account.reservedCents),
      debt: formatCents(debtOf(account)),
      fee_per_payout: formatCents(account.feePerPayoutCents),
      currency: 'ZAR',
    };
  }

  /** The fee cash and bank payouts fall back to (ops `payout:fee`); snapshotted into each payout at creation. */
  async setFeePerPayout(vendorId: string, feeCents: Cents): Promise<PayoutAccountSnapshot> {
    await this.changeFeePerPayout(vendorId, feeCents, this.dataSource.manager);
    return this.getAccount(vendorId);
  }

  /** setFeePerPayout in the caller's transaction (the staff audit record commits with it); returns the fee before. */
  async changeFeePerPayout(vendorId: string, feeCents: Cents, manager: EntityManager): Promise<Cents> {
    if (typeof feeCents !== 'bigint' || feeCents < 0n) throw new ValidationFailedError({ amount: ['fee must be zero or positive'] });
    await this.ledger.ensureAccount(manager, vendorId);
    const before = await this.accounts.feePerPayout(vendorId, manager);
    await this.accounts.setFeePerPayout(vendorId, feeCents, manager);
    return before;
  }
}
