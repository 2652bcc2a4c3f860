import { Injectable } from '@nestjs/common';
import { johannesburgDayRange } from '#common';
import type { SalesSummaryView } from '../model/transaction-view.js';
import { TransactionListRepository } from '../persistence/transaction-list.repository.js';

/** A vendor's sales over whole days (`GET /reports/summary`, the dashboard's spend page). */
@Injectable()
export class PurchaseSalesSummaryService {
  constructor(private readonly transactions: TransactionListRepository) {}

  /** Whole Africa/Johannesburg days; an omitted end leaves that end of the period open. */
  async summary(vendorId: string, dateFrom?: string, dateTo?: string): Promise<SalesSummaryView> {
    const from = dateFrom ? johannesburgDayRange(dateFrom).start : null;
    const to = dateTo ? johannesburgDayRange(dateTo).endExclusive : null;
    const figures = await this.transactions.salesSummary(vendorId, from, to);
    return { date_from: dateFrom ?? null, date_to: dateTo ?? null, currency: 'ZAR', ...figures };
  }
}
