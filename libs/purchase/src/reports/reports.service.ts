import { Injectable } from '@nestjs/common';
import { johannesburgDayRange } from '#common';
import { centsFromDbValue, minorUnitsFromCents } from '#money';
import { TransactionsRepository } from '../persistence/transactions.repository.js';

/** GET /reports/summary. */
export interface SalesSummaryView {
  date_from: string | null;
  date_to: string | null;
  currency: 'ZAR';
  /** Every verified sale whose completion falls in the period, including those reversed since (gross). */
  completed_count: number;
  completed_gross_minor: number;
  /** Of those sales, the ones reversed since, counted on their original completion date. */
  reversed_count: number;
  reversed_gross_minor: number;
  /** completed_gross_minor minus reversed_gross_minor. */
  net_minor: number;
  /** Still pending or in review, by admission date. */
  pending_count: number;
  review_count: number;
}

@Injectable()
export class ReportsService {
  constructor(private readonly transactions: TransactionsRepository) {}

  /** Whole Africa/Johannesburg days; an omitted end leaves that end of the period open. */
  async summary(vendorId: string, dateFrom?: string, dateTo?: string): Promise<SalesSummaryView> {
    const from = dateFrom ? johannesburgDayRange(dateFrom).start : null;
    const to = dateTo ? johannesburgDayRange(dateTo).endExclusive : null;
    const row = await this.transactions.salesSummary(vendorId, from, to);
    const completed = centsFromDbValue(row.completed_gross);
    const reversed = centsFromDbValue(row.reversed_gross);
    return {
      date_from: dateFrom ?? null,
      date_to: dateTo ?? null,
      currency: 'ZAR',
      completed_count: row.completed_count,
      completed_gross_minor: minorUnitsFromCents(completed),
      reversed_count: row.reversed_count,
      reversed_gross_minor: minorUnitsFromCents(reversed),
      net_minor: minorUnitsFromCents(completed - reversed),
      pending_count: row.pending_count,
      review_count: row.review_count,
    };
  }
}
