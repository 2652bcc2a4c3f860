import { addViolation, type InvariantReport } from './invariant-report.js';
import { inScope, type InvariantQuery } from './invariant-query.js';

/** A provider sandbox whose submission witness (`GET /__sandbox/submissions/summary`) is the authority on repeats. */
export interface SubmissionWitnessSource {
  url: string;
  apiKey: string;
  /** false: an unreachable witness becomes a warning (e.g. a real provider, which has none); default true. */
  required?: boolean;
}

export class WitnessUnavailableError extends Error {}

interface WitnessSummary {
  external_ids: Array<{ external_id: string; count: number; duplicate_attempts: number }>;
  merchant_references: Array<{ merchant_reference: string; count: number; duplicate_attempts: number }>;
}

/**
 * The sandbox counts every create and submit call it receives; any id it received more than
 * once is a second provider submission. Scoped checks keep only the ids this database holds for
 * the scoped vendors; an unscoped check reports every repeat the sandbox saw.
 */
export async function checkWitness(
  query: InvariantQuery,
  vendors: string[] | null,
  sandbox: SubmissionWitnessSource,
  timeoutMs: number,
  report: InvariantReport,
): Promise<void> {
  let summary: WitnessSummary;
  try {
    const response = await fetch(`${sandbox.url.replace(/\/$/, '')}/__sandbox/submissions/summary`, {
      headers: { 'x-api-key': sandbox.apiKey },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    summary = (await response.json()) as WitnessSummary;
  } catch (error) {
    throw new WitnessUnavailableError(`submission witness of ${sandbox.url} unavailable: ${(error as Error).message}`);
  }
  const repeatedPurchases = summary.external_ids ?? [];
  const repeatedPayouts = summary.merchant_references ?? [];
  const purchaseIds = repeatedPurchases.map((entry) => entry.external_id).filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const ours = new Map<string, string>();
  if (purchaseIds.length > 0) {
    const rows = await query(`SELECT id::text AS id, vendor_id FROM purchase_transactions WHERE id = ANY($2::uuid[]) AND ${inScope('vendor_id')}`, [vendors, purchaseIds]);
    for (const row of rows) ours.set(String(row.id), String(row.vendor_id));
  }
  if (repeatedPayouts.length > 0) {
    const rows = await query(`SELECT merchant_reference, vendor_id FROM payouts WHERE merchant_reference = ANY($2::text[]) AND ${inScope('vendor_id')}`, [
      vendors,
      repeatedPayouts.map((entry) => entry.merchant_reference),
    ]);
    for (const row of rows) ours.set(String(row.merchant_reference), String(row.vendor_id));
  }
  report.examined.singleProviderSubmission = (report.examined.singleProviderSubmission ?? 0) + repeatedPurchases.length + repeatedPayouts.length;
  const repeats = [
    ...repeatedPurchases.map(({ external_id: id, ...tally }) => ({ id, kind: 'purchase', ...tally })),
    ...repeatedPayouts.map(({ merchant_reference: id, ...tally }) => ({ id, kind: 'payout', ...tally })),
  ];
  for (const { id, kind, count, duplicate_attempts } of repeats) {
    if (vendors && !ours.has(id)) continue;
    addViolation(report, 'singleProviderSubmission', id, { kind, sandbox: sandbox.url, count, duplicate_attempts, known: ours.has(id) });
  }
}
