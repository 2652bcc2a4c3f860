import type { InvariantReport } from './invariant-report.js';
import { countExamined, inScope, type InvariantQuery } from './invariant-query.js';

/**
 * Manual resolutions of review items (docs/BACK-OFFICE.md):
 * - each rests on a proposal of the same kind, item and outcome, approved by a staff member
 *   other than its proposer; and no purchase or payout was moved "by staff" without such a
 *   resolution on record;
 * - none contradicts what the provider verifiably said about the item (before or after), and
 *   the item still shows the resolved outcome (a completed purchase may since be reversed, a
 *   paid payout likewise).
 */
export async function checkManualResolutions(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const examined = await countExamined(query, vendors, `FROM staff_manual_resolutions WHERE ${inScope('vendor_id')}`);
  report.examined.manualResolutionApproved = examined;
  report.examined.manualResolutionAgreesWithProvider = examined;

  const unapproved = await query(
    `SELECT r.domain, r.item_id::text AS item_id, r.outcome, p.id AS proposal_id, p.status AS proposal_status, p.kind, p.proposed_by, p.decided_by, 'resolution without a valid approval' AS problem
       FROM staff_manual_resolutions r LEFT JOIN staff_proposals p ON p.id = r.proposal_id
      WHERE ${inScope('r.vendor_id')}
        AND (p.id IS NULL OR p.status <> 'approved' OR p.decided_by IS NULL OR p.decided_by = p.proposed_by
             OR p.kind <> r.domain || '.resolve' OR p.subject_id <> r.item_id::text OR p.params->>'outcome' IS DISTINCT FROM r.outcome)
     UNION ALL
     SELECT 'purchase', t.id::text, e.to_status, NULL, NULL, NULL, NULL, NULL, 'moved by staff without a resolution on record'
       FROM purchase_transaction_events e JOIN purchase_transactions t ON t.id = e.transaction_id
      WHERE ${inScope('t.vendor_id')} AND e.reason LIKE 'resolved by staff:%'
        AND NOT EXISTS (SELECT 1 FROM staff_manual_resolutions r WHERE r.domain = 'purchase' AND r.item_id = t.id)
     UNION ALL
     SELECT 'payout', p.id::text, p.status, NULL, NULL, NULL, NULL, NULL, 'moved by staff without a resolution on record'
       FROM payouts p
      WHERE ${inScope('p.vendor_id')} AND p.status_reason = 'resolved_by_staff'
        AND NOT EXISTS (SELECT 1 FROM staff_manual_resolutions r WHERE r.domain = 'payout' AND r.item_id = p.id)`,
    [vendors],
  );
  for (const row of unapproved) {
    report.violations.push({ invariant: 'manualResolutionApproved', subject: String(row.item_id), details: { ...row } });
  }

  const contradicted = await query(
    `SELECT r.domain, r.item_id::text AS item_id, r.outcome, t.status AS item_status, t.provider_status AS provider_said
       FROM staff_manual_resolutions r JOIN purchase_transactions t ON t.id = r.item_id
      WHERE r.domain = 'purchase' AND ${inScope('r.vendor_id')}
        AND CASE r.outcome
              WHEN 'failed' THEN t.status <> 'failed' OR upper(coalesce(t.provider_status, '')) IN ('COMPLETED', 'REVERSED')
                OR EXISTS (SELECT 1 FROM purchase_transaction_events e WHERE e.transaction_id = t.id AND upper(coalesce(e.provider_status, '')) IN ('COMPLETED', 'REVERSED'))
              ELSE t.status NOT IN ('completed', 'reversed') OR upper(coalesce(t.provider_status, '')) = 'DECLINED'
                OR EXISTS (SELECT 1 FROM purchase_transaction_events e WHERE e.transaction_id = t.id AND upper(coalesce(e.provider_status, '')) = 'DECLINED')
            END
     UNION ALL
     SELECT r.domain, r.item_id::text, r.outcome, p.status,
            (SELECT string_agg(c.outcome, ',' ORDER BY c.id) FROM payout_provider_contacts c WHERE c.payout_id = p.id AND c.outcome IN ('paid', 'rejected', 'reversed'))
       FROM staff_manual_resolutions r JOIN payouts p ON p.id = r.item_id
      WHERE r.domain = 'payout' AND ${inScope('r.vendor_id')}
        AND CASE r.outcome
              -- A failed resolution the provider later proved wrong is corrected in the books (a resettle entry): not a contradiction left standing.
              WHEN 'failed' THEN (p.status <> 'failed' OR EXISTS (SELECT 1 FROM payout_provider_contacts c WHERE c.payout_id = p.id AND c.outcome IN ('paid', 'reversed')))
                AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.payout_id = p.id AND l.kind = 'resettle')
              ELSE p.status NOT IN ('paid', 'reversed') OR EXISTS (SELECT 1 FROM payout_provider_contacts c WHERE c.payout_id = p.id AND c.outcome = 'rejected')
            END`,
    [vendors],
  );
  for (const row of contradicted) {
    report.violations.push({ invariant: 'manualResolutionAgreesWithProvider', subject: String(row.item_id), details: { ...row } });
  }
}

/**
 * Corrections by a person (docs/RECONCILIATION.md, "Resolutions"): every `adjust_debit` /
 * `adjust_credit` entry names an `exception.resolve` proposal that was approved by someone other
 * than its proposer, for the same exception, entry kind and amount, and that proposal resolved
 * the exception. An entry written any other way (one person, a direct write) is reported.
 */
export async function checkCorrectionsApproved(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.correctionApproved = await countExamined(query, vendors, `FROM ledger_entries WHERE kind IN ('adjust_debit', 'adjust_credit') AND ${inScope('vendor_id')}`);
  const rows = await query(
    `SELECT l.id::text AS entry_id, l.kind, l.amount_cents::text AS amount_cents, l.exception_id, l.proposal_id,
            p.status AS proposal_status, p.kind AS proposal_kind, p.proposed_by, p.decided_by, e.resolution_proposal_id
       FROM ledger_entries l
       LEFT JOIN staff_proposals p ON p.id = l.proposal_id
       LEFT JOIN reconciliation_exceptions e ON e.id = l.exception_id
      WHERE l.kind IN ('adjust_debit', 'adjust_credit') AND ${inScope('l.vendor_id')}
        AND (p.id IS NULL OR p.kind <> 'exception.resolve' OR p.status <> 'approved' OR p.decided_by IS NULL OR p.decided_by = p.proposed_by
             OR p.subject_id <> l.exception_id::text OR p.params->>'entry_kind' IS DISTINCT FROM l.kind
             OR p.params->>'amount_cents' IS DISTINCT FROM l.amount_cents::text OR e.resolution_proposal_id IS DISTINCT FROM p.id)`,
    [vendors],
  );
  for (const row of rows) {
    report.violations.push({ invariant: 'correctionApproved', subject: String(row.entry_id), details: { ...row } });
  }
}
