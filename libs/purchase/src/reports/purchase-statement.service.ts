import { Injectable } from '@nestjs/common';
import { johannesburgDayRange } from '#common';
import { PurchaseStatementRepository, type PurchaseStatementRow, type StatementPeriod } from '../persistence/purchase-statement.repository.js';

export interface PurchaseStatementPage {
  items: PurchaseStatementRow[];
  page: number;
  total: number;
  last_page: number;
}

/** `GET /reports/statement`: what the vendor was charged and what was reversed, per day or month, product and operator. */
@Injectable()
export class PurchaseStatementService {
  constructor(private readonly statements: PurchaseStatementRepository) {}

  async page(vendorId: string, query: { period: StatementPeriod; dateFrom?: string; dateTo?: string; page: number; perPage: number }): Promise<PurchaseStatementPage> {
    const from = query.dateFrom ? johannesburgDayRange(query.dateFrom).start : null;
    const to = query.dateTo ? johannesburgDayRange(query.dateTo).endExclusive : null;
    const { total, items } = await this.statements.page(vendorId, query.period, from, to, query.perPage, (query.page - 1) * query.perPage);
    return { items, page: query.page, total, last_page: Math.max(1, Math.ceil(total / query.perPage)) };
  }
}
