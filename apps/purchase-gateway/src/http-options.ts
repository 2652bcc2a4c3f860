import type { HttpAppOptions } from '#common';
import { WEBHOOKS_TAG } from '#webhooks';
import { PURCHASE_ENVELOPE } from './http/purchase-envelope.js';
import { refinePurchaseSchemas } from './openapi/purchase-openapi.js';

/** Where an integrator looks first: the document's description (kept in step with docs/INTEGRATION.md). */
const DESCRIPTION = `Vendor purchase API: catalogue, lookups, quotes, idempotent purchases, transaction reads, fulfilment, limits and reports.

**Base URL.** \`servers[0].url\` is the base address: the origin followed by the version prefix \`/api/v1\` (the demo file's \`purchase.base_url\`); every path below is relative to it.
Every operation needs a bearer token (\`gwt_test_…\` in the sandbox, \`gwt_live_…\` in production) holding the ability listed in \`x-required-abilities\`.
Errors use \`{success: false, message: CODE, error: {code, ...}}\`; each error status lists the codes the operation can return.

**Polling cadence.** \`POST /transactions\` answers 202 \`pending\`. Poll \`GET /transactions/{id}\` after 2 s, then double the wait up to 60 s,
until the status is \`completed\`, \`failed\`, \`reversed\` or \`review\` (staff resolve \`review\`; keep polling it every few minutes).
A replayed request (same Idempotency-Key, quote_id and reference) answers with \`Idempotent-Replayed: true\` and never buys twice. Honour \`Retry-After\` on 429 and 503.

**Reversal window.** A \`completed\` purchase can still become \`reversed\` for 24 h (the gateway re-verifies it during that window; later reversals come from the provider's daily settlement report).

**Sandbox values.** The last two digits of \`mobile_number\` (or \`account_number\`) choose the provider's behaviour: other → \`completed\`; 01 → \`failed\` PROVIDER_DECLINED;
02 → create times out, \`completed\` by lookup; 03 → nothing created, \`failed\` PROVIDER_NOT_CREATED in about 20 s; 04 → \`completed\` then \`reversed\`;
05 → in progress for ever, \`review\`; 06 → callback before the lookup agrees, then \`completed\`; 07 → \`completed\` without callback; 08 → \`completed\`, PIN available after the next lookup;
09 → \`failed\` PROVIDER_NOT_CREATED, and stays failed when the provider creates it late.`;

export const PURCHASE_HTTP_OPTIONS: HttpAppOptions = {
  globalPrefix: 'api/v1',
  bodyLimit: '64kb',
  openApi: {
    title: 'Purchase gateway',
    description: DESCRIPTION,
    finish: {
      envelope: PURCHASE_ENVELOPE,
      // The contract's base address includes the version prefix: paths are relative to it.
      servers: [{ url: 'http://127.0.0.1:3000/api/v1', description: 'Local stack and sandbox (npm run stack); in production, your purchase gateway origin followed by /api/v1' }],
      pathPrefix: '/api/v1',
      tags: {
        catalogue: 'Services, countries, operators and products enabled for the vendor, with prices in ZAR cents',
        lookups: 'Read-only provider lookups (operators of a number, statements, accounts, eSIM benefits and status); never return PINs',
        quotes: 'Price a product for a destination amount or budget; a quote is valid for a short time',
        transactions: 'Idempotent purchases, their status (poll it) and the PIN or eSIM fulfilment',
        limits: "The vendor's daily allowance, per-transaction maximum and velocity limit",
        reports: 'Sales summary per Johannesburg day',
        ...WEBHOOKS_TAG,
      },
      replayable: ['createTransaction'],
      refineSchemas: refinePurchaseSchemas,
      webhooks: {
        'transaction.completed': { summary: 'A verified provider lookup completed the purchase (`data`: the transaction; fetch a PIN or eSIM from its fulfilment)', data: 'Transaction' },
        'transaction.failed': { summary: 'The purchase is proven failed (declined, or proven never created); `error_code` says why', data: 'Transaction' },
        'transaction.reversed': { summary: 'The provider reversed a completed purchase', data: 'Transaction' },
        'transaction.review': { summary: 'The outcome stayed unknown past the verification window; staff take over', data: 'Transaction' },
      },
      errorDetails: { DAILY_CAP_EXCEEDED: { remaining_minor: 1500 }, BUDGET_INSUFFICIENT: { minimum_charge_minor: 1000 } },
    },
  },
};
