import type { ProviderHttpTransport } from '../http/provider-http-transport.js';
import { ProviderCallError } from '../provider-errors.js';

/** The statuses a settlement line may carry, in our vocabulary. */
export type SettlementLineStatus = 'settled' | 'reversed';

/** One validated line of a provider's daily settlement report. */
export interface SettlementReportLine {
  /** The provider's own id (purchase transaction id, payout provider reference). */
  providerReference: string;
  /** Ours: the purchase transaction id (external id) or the payout's merchant reference. */
  merchantReference: string;
  /** Exact decimal string with two places, as the provider wrote it. */
  amount: string;
  amountCents: bigint;
  currency: string;
  status: SettlementLineStatus;
  /** The provider's status word (COMPLETED, PAID, REVERSED), for staff. */
  providerStatus: string;
  settledAt: string;
  reversedAt: string | null;
  /** The line exactly as received, for storage and audit. */
  raw: Record<string, unknown>;
}

export interface SettlementReport {
  reportDate: string;
  lines: SettlementReportLine[];
}

/**
 * One of our records closed (settled or reversed; `S` is its domain's status) on a report's day
 * that no line of the provider's report names, with its amount and the provider's id as the
 * report would carry them. Read by each domain (purchase_transactions, payouts) and raised as a
 * `missing_line` exception by the settlement ingestor.
 */
export interface ClosedWithoutLine<S extends string = string> {
  id: string;
  vendorId: string;
  status: S;
  amountCents: string;
  providerReference: string | null;
}

/**
 * The report did not have the promised shape. Not a network problem, so never retried: the
 * ingestion stops before recording anything and names the page and line for staff.
 */
export class SettlementReportFormatError extends ProviderCallError {
  readonly code = 'SETTLEMENT_REPORT_INVALID';
  readonly outcomeUnknown = false;
}

const AMOUNT = /^(0|[1-9]\d{0,11})\.\d{2}$/;
const MAX_PAGES = 10_000;

interface ReportPageWire {
  report_date?: unknown;
  page?: unknown;
  total_pages?: unknown;
  lines?: unknown;
}

/** Reads every page of `{path}/{day}` and validates each line strictly. */
export async function fetchSettlementReport(http: ProviderHttpTransport, operation: string, path: string, day: string, settledWord: string): Promise<SettlementReport> {
  const lines: SettlementReportLine[] = [];
  for (let page = 1; ; page++) {
    const response = await http.get<ReportPageWire>({ operation, path: `${path}/${day}`, query: { page, per_page: 100 } });
    const body = response.body;
    if (typeof body !== 'object' || body === null || body.report_date !== day) throw new SettlementReportFormatError(operation, `page ${page} is not the report of ${day}`);
    if (!Array.isArray(body.lines)) throw new SettlementReportFormatError(operation, `page ${page} has no lines array`);
    const totalPages = body.total_pages;
    if (typeof totalPages !== 'number' || !Number.isSafeInteger(totalPages) || totalPages < 1 || totalPages > MAX_PAGES) {
      throw new SettlementReportFormatError(operation, `page ${page} has an invalid total_pages`);
    }
    body.lines.forEach((line, index) => lines.push(settlementLineOf(line, settledWord, `${operation}: page ${page} line ${index + 1}`)));
    if (page >= totalPages) break;
  }
  return { reportDate: day, lines };
}

/** One line, or a SettlementReportFormatError naming what is wrong with it. Never a float. */
export function settlementLineOf(raw: unknown, settledWord: string, where: string): SettlementReportLine {
  const fail = (detail: string): never => {
    throw new SettlementReportFormatError(where, detail);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('not an object');
  const line = raw as Record<string, unknown>;
  const text = (field: string, pattern?: RegExp): string => {
    const value = line[field];
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) return fail(`${field} must be a non-empty string`);
    if (pattern && !pattern.test(value)) return fail(`${field} has an invalid format`);
    return value;
  };
  const instant = (field: string): string => {
    const value = text(field);
    if (Number.isNaN(new Date(value).getTime())) fail(`${field} is not a timestamp`);
    return value;
  };
  const amount = text('amount', AMOUNT);
  const providerStatus = text('status');
  if (providerStatus !== settledWord && providerStatus !== 'REVERSED') fail(`status must be ${settledWord} or REVERSED`);
  const status: SettlementLineStatus = providerStatus === 'REVERSED' ? 'reversed' : 'settled';
  const reversedAt = line.reversed_at === null || line.reversed_at === undefined ? null : instant('reversed_at');
  if (status === 'reversed' && reversedAt === null) fail('a REVERSED line needs reversed_at');
  const [rands, cents] = amount.split('.');
  return {
    providerReference: text('provider_reference'),
    merchantReference: text('merchant_reference'),
    amount,
    amountCents: BigInt(rands) * 100n + BigInt(cents),
    currency: text('currency', /^[A-Z]{3}$/),
    status,
    providerStatus,
    settledAt: instant('settled_at'),
    reversedAt,
    raw: line,
  };
}
