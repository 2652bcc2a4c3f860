import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { query, withClient } from './database.mjs';

const run = promisify(execFile);

/** `npm run ops -- <args>` without npm's overhead: one JSON object on stdout. */
export async function ops(env, args) {
  try {
    const { stdout } = await run(process.execPath, ['dist/apps/ops/src/main.js', ...args], { env, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout.trim().split('\n').pop());
  } catch (error) {
    throw new Error(`ops ${args[0]} failed: ${error.stderr || error.message}`, { cause: error });
  }
}

/**
 * Bench vendors through the operator CLI: the demo seed (catalogue, pricing, payout methods,
 * funding, release, tokens), then spend controls and funding sized so that no limit throttles
 * the load (the limits themselves are still checked on every admission).
 */
export async function seedVendors(env, settings, log) {
  const vendors = [];
  for (let index = 1; index <= settings.vendors; index++) {
    // One at a time: each seed also syncs the catalogue, which is not meant to run concurrently.
    const seeded = await ops(env, [
      'demo:seed',
      '--vendor-name',
      `Bench vendor ${index}`,
      '--purchase-base-url',
      `http://127.0.0.1:${settings.ports.purchase}`,
      '--payout-base-url',
      `http://127.0.0.1:${settings.ports.payout}`,
    ]);
    vendors.push({ id: seeded.vendor_id, purchaseToken: seeded.purchase.token, payoutToken: seeded.payout.token });
  }
  log(`seeded ${vendors.length} vendors; raising spend controls and funding`);
  // The raise and the funding are far above any four-eyes threshold: the bench runs them as one
  // operator by giving these two commands a threshold of its own (R1 000 000 000.00, the bench's
  // largest amount), the documented way to keep a money command below it. The bench's database is
  // its own and thrown away; the `payout.funded` records keep the threshold in force
  // (docs/BACK-OFFICE.md, "The operator CLI and four eyes").
  const oneOperator = { ...env, STAFF_FOUR_EYES_ABOVE_CENTS: '100000000000' };
  await Promise.all(
    vendors.map(async (vendor) => {
      await ops(oneOperator, [
        'limits:set',
        '--vendor',
        vendor.id,
        '--daily-cap-minor',
        '100000000000',
        '--transaction-max-minor',
        '500000',
        '--velocity-count',
        String(settings.velocityCount),
        '--velocity-window-seconds',
        String(settings.velocityWindowSeconds),
      ]);
      await ops(oneOperator, ['payout:fund', '--vendor', vendor.id, '--amount', '500000000.00', '--note', 'benchmark']);
    }),
  );
  return vendors;
}

/** The first fixed-price product whose only requirement is the credit party's mobile number. */
export async function pickPurchaseProduct(purchaseBase, token) {
  const response = await fetch(`${purchaseBase}/products?per_page=100`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.json();
  if (!response.ok) throw new Error(`GET /products failed: ${response.status} ${JSON.stringify(body)}`);
  const product = body.data.items.find(
    (item) =>
      item.type === 'fixed' &&
      item.price !== null &&
      item.fulfilment === 'none' &&
      JSON.stringify(item.requirements.credit_party_identifier) === JSON.stringify([['mobile_number']]) &&
      Object.entries(item.requirements).every(([group, sets]) => group === 'credit_party_identifier' || sets.length === 0),
  );
  if (!product) throw new Error('no fixed mobile-number product in the sandbox catalogue');
  return { product, catalogueTotal: body.data.total };
}

/** A real quote made through the API for each vendor: the template of the cloned quotes. */
export async function templateQuotes(purchaseBase, vendors, productId) {
  for (const vendor of vendors) {
    const response = await fetch(`${purchaseBase}/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${vendor.purchaseToken}`, 'content-type': 'application/json' },
      // Test value "67": the sandbox completes it after its delay and sends a callback.
      body: JSON.stringify({ product_id: productId, credit_party_identifier: { mobile_number: '27821234567' } }),
    });
    const body = await response.json();
    if (response.status !== 201) throw new Error(`POST /quotes failed: ${response.status} ${JSON.stringify(body)}`);
    vendor.templateQuoteId = body.data.id;
  }
}

/**
 * `perVendor` fresh quotes per vendor, copies of the vendor's API-made template with new ids and
 * the contract's five-minute validity from now. Returns purchase items for the load driver,
 * interleaved across vendors: [token, quoteId, idempotencyKey, reference]. `mobileNumber`, when
 * given, replaces the template's credit party number (the sandbox's test value: its last two digits).
 */
export async function cloneQuotes(databaseUrl, vendors, perVendor, label, mobileNumber = null) {
  const perVendorIds = [];
  await withClient(databaseUrl, async (client) => {
    for (const vendor of vendors) {
      const rows = (
        await client.query(
          `INSERT INTO purchase_quotes (id, vendor_id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency,
             destination_amount, destination_unit, benefits, budget_cents, unused_budget_cents, identifiers, created_at, expires_at)
           SELECT gen_random_uuid(), q.vendor_id, q.product_id, q.pricing_version_id, q.charge_cents, q.wholesale_cents, q.currency,
                  q.destination_amount, q.destination_unit, q.benefits, q.budget_cents, q.unused_budget_cents,
                  CASE WHEN $3::text IS NULL THEN q.identifiers ELSE jsonb_set(q.identifiers, '{credit_party_identifier,mobile_number}', to_jsonb($3::text)) END,
                  now(), now() + interval '300 seconds'
             FROM purchase_quotes q, generate_series(1, $2) WHERE q.id = $1
           RETURNING id`,
          [vendor.templateQuoteId, perVendor, mobileNumber],
        )
      ).rows;
      perVendorIds.push(rows.map((row) => row.id));
    }
  });
  const items = [];
  for (let index = 0; index < perVendor; index++) {
    vendors.forEach((vendor, vendorIndex) => {
      const serial = `${label}-${vendorIndex}-${index}`;
      items.push([vendor.purchaseToken, perVendorIds[vendorIndex][index], `key-${serial}`, `ref-${serial}`]);
    });
  }
  await query(databaseUrl, 'ANALYZE purchase_quotes');
  return items;
}
