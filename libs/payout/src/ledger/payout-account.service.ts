import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { centsFromDbValue, formatCents, type Cents } from '#money';
import { PayoutLedger } from './payout-ledger.js';

/** `GET /api/v1/account` (payout contract, Account). */
export interface AccountView {
  id: string;
  name: string;
  available: string;
  reserved: string;
  fee_per_payout: string;
  currency: 'ZAR';
}

export interface PayoutAccountSnapshot {
  id: string;
  vendorId: string;
  vendorName: string;
  availableCents: Cents;
  reservedCents: Cents;
  feePerPayoutCents: Cents;
}

@Injectable()
export class PayoutAccountService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: PayoutLedger,
  ) {}

  /** The vendor's account, created with zero balances on first use. */
  async getAccount(vendorId: string): Promise<PayoutAccountSnapshot> {
    await this.ledger.ensureAccount(this.dataSource.manager, vendorId);
    const rows: Array<Record<string, string>> = await this.dataSource.query(
      `SELECT a.id, a.vendor_id, v.name, a.available_cents, a.reserved_cents, a.fee_per_payout_cents
         FROM payout_accounts a JOIN vendors v ON v.id = a.vendor_id WHERE a.vendor_id = $1`,
      [vendorId],
    );
    if (rows.length === 0) throw new NotFoundError('account');
    const row = rows[0];
    return {
      id: row.id,
      vendorId: row.vendor_id,
      vendorName: row.name,
      availableCents: centsFromDbValue(row.available_cents),
      reservedCents: centsFromDbValue(row.reserved_cents),
      feePerPayoutCents: centsFromDbValue(row.fee_per_payout_cents),
    };
  }

  async getAccountView(vendorId: string): Promise<AccountView> {
    return accountViewOf(await this.getAccount(vendorId));
  }

  /** The fee cash and bank payouts fall back to (ops `payout:fee`); snapshotted into each payout at creation. */
  async setFeePerPayout(vendorId: string, feeCents: Cents): Promise<PayoutAccountSnapshot> {
    if (typeof feeCents !== 'bigint' || feeCents < 0n) throw new ValidationFailedError({ amount: ['fee must be zero or positive'] });
    await this.ledger.ensureAccount(this.dataSource.manager, vendorId);
    await this.dataSource.query(`UPDATE payout_accounts SET fee_per_payout_cents = $2, updated_at = now() WHERE vendor_id = $1`, [vendorId, feeCents.toString()]);
    return this.getAccount(vendorId);
  }

  async feePerPayout(vendorId: string, manager: EntityManager = this.dataSource.manager): Promise<Cents> {
    const rows: Array<{ fee_per_payout_cents: string }> = await manager.query(`SELECT fee_per_payout_cents FROM payout_accounts WHERE vendor_id = $1`, [vendorId]);
    return rows.length > 0 ? centsFromDbValue(rows[0].fee_per_payout_cents) : 0n;
  }
}

export function accountViewOf(account: PayoutAccountSnapshot): AccountView {
  return {
    id: account.id,
    name: account.vendorName,
    available: formatCents(account.availableCents),
    reserved: formatCents(account.reservedCents),
    fee_per_payout: formatCents(account.feePerPayoutCents),
    currency: 'ZAR',
  };
}
