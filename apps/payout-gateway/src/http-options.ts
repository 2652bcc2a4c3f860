import type { HttpAppOptions } from '#common';
import { WEBHOOKS_TAG } from '#webhooks';
import { PAYOUT_ENVELOPE } from './http/payout-envelope.js';
import { refinePayoutSchemas } from './openapi/payout-openapi.js';

/** Where an integrator looks first: the document's description (kept in step with docs/INTEGRATION.md). */
const DESCRIPTION = `Vendor payout API on a prefunded account: account, methods, single payouts, batches, delivery and SMS resend.

**Base URL.** \`servers[0].url\` is the origin (the demo file's \`payout.base_url\`); every path starts with \`/api/v1\`.
Every operation needs a bearer token (\`gwt_test_…\` in the sandbox, \`gwt_live_…\` in production) holding the scope listed in \`x-required-abilities\`.
Errors use \`{success: false, code, message, errors: {"field.path": [...]}}\`; each error status lists the codes the operation can return.

**Polling cadence.** \`POST /api/v1/payouts\` answers with the verdict (\`paid\` or \`pending\`; a provider refusal is 422 \`PROVIDER_REJECTED\`, the payout \`failed\`). While \`pending\`, poll \`GET /api/v1/payouts/{reference}\`
after 5 s, then double the wait up to 5 min; batches likewise with \`GET /api/v1/batches/{reference}\`. Replaying the same reference and payload answers the stored payout with
\`Idempotent-Replayed: true\` and never pays twice. Honour \`Retry-After\` on 429 and 503.

**Reversal window.** A \`paid\` payout can still become \`reversed\` for 2 h (watched by the gateway); later reversals (for example uncollected cash) come from the provider's daily settlement report.

**Sandbox values.** The last two digits of \`recipient.phone\` (cash), of the bank account number (\`rtc_eft\`) or the cents of \`amount\` (vouchers):
other → \`paid\` (rtc_eft: \`pending\`, then \`paid\`); 01 → 422 \`PROVIDER_REJECTED\` (the payout \`failed\` provider_rejected, hold released); 02 → provider times out, \`pending\` then \`paid\`; 03 → \`paid\` then \`reversed\`;
04 → outcome never known, \`needs_review\`; 05 → never received, \`failed\` not_received_by_provider; 06 / 07 → provider answers that do not match, \`needs_review\`.`;

export const PAYOUT_HTTP_OPTIONS: HttpAppOptions = {
  // Payout paths carry /api/v1 themselves in the contract; the prefix keeps health and docs at the root.
  globalPrefix: 'api/v1',
  // A 500-item batch is roughly 400 KB of JSON.
  bodyLimit: '1mb',
  openApi: {
    title: 'Payout gateway',
    description: DESCRIPTION,
    finish: {
      envelope: PAYOUT_ENVELOPE,
      servers: [{ url: 'http://127.0.0.1:3001', description: 'Local stack and sandbox (npm run stack); in production, your payout gateway origin' }],
      tags: {
        account: 'The prefunded account: available and reserved balances in ZAR',
        methods: 'Payout methods with their limits, increments and fees',
        payouts: 'Single payouts: send, read, collection PIN or voucher delivery, SMS resend',
        batches: 'Up to 500 payouts validated and reserved at once, submitted in the background',
        statement: 'The account statement: one line per money movement with running balances, a range summary and a CSV export',
        ...WEBHOOKS_TAG,
      },
      replayable: ['createPayout', 'createBatch'],
      refineSchemas: refinePayoutSchemas,
      webhooks: {
        'payout.paid': { summary: 'The provider paid the payout (`data`: the payout, `delivery` always null)', data: 'Payout' },
        'payout.failed': { summary: 'The payout failed (rejected, or proven never received); its hold is released', data: 'Payout' },
        'payout.reversed': { summary: 'A paid payout came back; amount and fee are credited back', data: 'Payout' },
        'batch.completed': { summary: 'The last open item of a batch finished (once per batch; items with `delivery` null)', data: 'Batch' },
      },
    },
  },
};
