/**
 * `npm run check:invariants`: checks the money invariants against the database in DATABASE_URL
 * and prints one JSON report. Exit 0: no violation; 1: violations; 2: the check could not run.
 *
 *   --sandbox URL [--sandbox-key KEY]   read this provider sandbox's submission witness (repeatable;
 *                                       the key applies to the sandbox before it). Required: an
 *                                       unreachable witness fails the run.
 *   --vendor ID                         only this vendor's rows (repeatable)
 *   --no-provider-witness               do not try the configured provider base URLs
 *
 * Without --sandbox, the configured PURCHASE/PAYOUT_PROVIDER_BASE_URL are tried as witnesses on
 * a best-effort basis (a real provider has no witness: that becomes a warning).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadConfig } from '#config';
import { checkInvariants, type SubmissionWitnessSource } from './persistence/invariant-checker.js';
import { withReadOnlySnapshot } from './persistence/read-only-snapshot.js';

function sandboxesFrom(tokens: ReturnType<typeof parseArgs>['tokens']): SubmissionWitnessSource[] {
  const sandboxes: SubmissionWitnessSource[] = [];
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    if (token.name === 'sandbox') sandboxes.push({ url: String(token.value), apiKey: 'sandbox-key', required: true });
    if (token.name === 'sandbox-key') {
      const last = sandboxes.at(-1);
      if (!last) throw new Error('--sandbox-key must follow a --sandbox');
      last.apiKey = String(token.value);
    }
  }
  return sandboxes;
}

async function main(): Promise<number> {
  const args = parseArgs({
    options: {
      sandbox: { type: 'string', multiple: true },
      'sandbox-key': { type: 'string', multiple: true },
      vendor: { type: 'string', multiple: true },
      'no-provider-witness': { type: 'boolean', default: false },
    },
    tokens: true,
    strict: true,
  });
  // The database, the providers' URLs and keys (or the sandbox's key) for the witness, and the payout hold bound.
  const config = loadConfig(process.env, {}, ['database', 'purchaseProvider', 'payoutProvider', 'payoutTimings', 'sandbox']);
  let sandboxes = sandboxesFrom(args.tokens);
  if (sandboxes.length === 0 && !args.values['no-provider-witness']) {
    const configured: SubmissionWitnessSource[] = [];
    // The purchase provider is configured with its API prefix; the witness sits at the root.
    if (config.PURCHASE_PROVIDER_BASE_URL) {
      configured.push({ url: config.PURCHASE_PROVIDER_BASE_URL.replace(/\/dvs\/v1\/?$/, ''), apiKey: config.PURCHASE_PROVIDER_API_KEY ?? config.SANDBOX_API_KEY, required: false });
    }
    if (config.PAYOUT_PROVIDER_BASE_URL) configured.push({ url: config.PAYOUT_PROVIDER_BASE_URL, apiKey: config.PAYOUT_PROVIDER_API_KEY ?? config.SANDBOX_API_KEY, required: false });
    sandboxes = configured.filter((source, index) => configured.findIndex((other) => other.url.replace(/\/$/, '') === source.url.replace(/\/$/, '')) === index);
  }
  // One repeatable-read snapshot: every check sees the same committed state.
  const report = await withReadOnlySnapshot(config.DATABASE_URL, 'check-invariants', (query) => checkInvariants(query, { vendorIds: args.values.vendor, sandboxes, payoutHoldMaxAgeMs: config.PAYOUT_HOLD_MAX_AGE_MS }));
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stdout.write(`${JSON.stringify({ ok: false, error: error.message })}\n`);
    process.exit(2);
  },
);
