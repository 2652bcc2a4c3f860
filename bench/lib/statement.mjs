import { withClient } from './database.mjs';

/**
 * `rows` funding entries of 0.01 to 2,000.00 for the vendor, written as the ledger writes them
 * (the account's available balance moves by their sum, so the books still agree), the way the
 * 200,000-line export test seeds its vendor.
 */
export async function insertLedgerLines(databaseUrl, vendorId, rows) {
  await withClient(databaseUrl, async (client) => {
    await client.query(`SET synchronous_commit = off`);
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents)
       SELECT $1, 'fund', 1 + (i % 200000), 1 + (i % 200000), 0 FROM generate_series(0, $2 - 1) AS i`,
      [vendorId, rows],
    );
    await client.query(`UPDATE payout_accounts SET available_cents = (SELECT sum(available_delta_cents) FROM ledger_entries WHERE vendor_id = $1) WHERE vendor_id = $1`, [vendorId]);
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) ledger_entries');
  });
}

/** The statement's first `pages` pages of `perPage` lines, newest first, as paths (each cursor from the page before). */
export async function statementPagePaths(payoutUrl, token, pages, perPage) {
  const paths = [];
  let cursor = null;
  for (let index = 0; index < pages; index++) {
    const path = `/api/v1/statement?per_page=${perPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await fetch(`${payoutUrl}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    if (response.status !== 200) throw new Error(`statement page ${index + 1}: ${response.status} ${(await response.text()).slice(0, 300)}`);
    paths.push(path);
    cursor = (await response.json()).data.next_cursor;
    if (!cursor) break;
  }
  return paths;
}

/**
 * Downloads `path` as a client would, keeping only a line count: the lines (header excluded),
 * bytes, seconds from the request to the last byte and the first byte's delay.
 */
export async function streamedDownload(url, token) {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`export: ${response.status} ${(await response.text()).slice(0, 300)}`);
  let firstByteMs = null;
  let bytes = 0;
  let newlines = 0;
  for await (const chunk of response.body) {
    firstByteMs ??= performance.now() - started;
    bytes += chunk.length;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) newlines += 1;
  }
  return { lines: newlines - 1, bytes, seconds: (performance.now() - started) / 1000, firstByteMs };
}
