import { Controller, Get, Param, Query } from '@nestjs/common';
import { cashSendRailOf } from '../payout/cash-send/cash-send.controller.js';
import { pageRequestOf } from '../purchase/pagination.js';
import { sandboxError } from '../sandbox-errors.js';
import { reportDayOf, SettlementReports, type SettlementProvider } from './settlement-reports.service.js';

/**
 * `GET …/settlement-reports/{YYYY-MM-DD}` under each provider's own API, paginated in the body
 * (`page`, `per_page` up to 100, `total_lines`, `total_pages`), as statement APIs usually are.
 */
@Controller()
export class SettlementReportsController {
  constructor(private readonly reports: SettlementReports) {}

  @Get('dvs/v1/settlement-reports/:day')
  purchase(@Param('day') day: string, @Query('page') page?: string, @Query('per_page') perPage?: string) {
    return this.report('dvs', day, page, perPage);
  }

  @Get('cashsend/v1/:rail/settlement-reports/:day')
  cashSend(@Param('rail') rail: string, @Param('day') day: string, @Query('page') page?: string, @Query('per_page') perPage?: string) {
    return this.report(cashSendRailOf(rail), day, page, perPage);
  }

  @Get('rtc/v1/settlement-reports/:day')
  rtcEft(@Param('day') day: string, @Query('page') page?: string, @Query('per_page') perPage?: string) {
    return this.report('rtc_eft', day, page, perPage);
  }

  @Get('vouchers/v1/settlement-reports/:day')
  vouchers(@Param('day') day: string, @Query('page') page?: string, @Query('per_page') perPage?: string) {
    return this.report('voucher', day, page, perPage);
  }

  private report(provider: SettlementProvider, rawDay: string, page: string | undefined, perPage: string | undefined) {
    const day = reportDayOf(rawDay);
    if (!this.reports.isAvailable(provider, day)) throw sandboxError(503, 'REPORT_UNAVAILABLE', 'the settlement report for this day is not available; try again later');
    const request = pageRequestOf(page, perPage);
    const lines = this.reports.linesOf(provider, day);
    const start = (request.page - 1) * request.perPage;
    return {
      provider,
      report_date: day,
      page: request.page,
      per_page: request.perPage,
      total_lines: lines.length,
      total_pages: Math.max(1, Math.ceil(lines.length / request.perPage)),
      lines: lines.slice(start, start + request.perPage),
    };
  }
}
