/**
 * The framework ceiling for POST /transactions: plain `node:http` and `pg`, no NestJS, no
 * TypeORM, no logging, doing the admission transaction the gateway does at its core, on the
 * same tables and indexes:
 *
 *   token lookup by hash (the gateway's guard does the same)
 *   BEGIN READ COMMITTED
 *     idempotency row (INSERT ... ON CONFLICT DO NOTHING; a replay answers the stored transaction)
 *     quote lock (SELECT ... FOR UPDATE) and checks (unused, unexpired)
 *     daily allowance guarded update (used + charge <= cap)
 *     quote use (UPDATE used_at)
 *     transaction insert (the worker claims it from the table: no outbox row, as in the gateway)
 *   COMMIT
 *   202 with the transaction
 *
 * It leaves out what the gateway adds on purpose (spend-controls row lock and pause checks,
 * velocity count, pricing-version check, reference check, status event, rate limiting,
 * validation, request logging): the gap between the two is the price of those and of the
 * framework. `node plain-admission-server.mjs` with PORT, DATABASE_URL, DATABASE_POOL_SIZE.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const DAILY_CAP_CENTS = '100000000000';

const send = (response, status, body) => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

class Refusal extends Error {
  constructor(status, code) {
    super(code);
    this.status = status;
  }
}

/** Africa/Johannesburg is UTC+2 all year. */
const johannesburgDay = (instant) => new Date(instant.getTime() + 2 * 3_600_000).toISOString().slice(0, 10);

const view = (row) => ({
  id: row.id,
  reference: row.reference,
  status: row.status,
  product_id: row.product_id,
  quote_id: row.quote_id,
  charge_minor: Number(row.charge_cents),
  currency: row.currency,
  destination_amount: row.destination_amount,
  destination_unit: row.destination_unit,
  error_code: row.error_code,
  created_at: row.created_at.toISOString(),
});

async function admit(vendorId, key, quoteId, reference) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    const transactionId = randomUUID();
    const claimed = await client.query(
      `INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING transaction_id`,
      [vendorId, key, quoteId, reference, transactionId],
    );
    if (claimed.rowCount === 0) {
      const stored = await client.query(
        `SELECT t.* FROM purchase_idempotency_keys k JOIN purchase_transactions t ON t.id = k.transaction_id
          WHERE k.vendor_id = $1 AND k.idempotency_key = $2`,
        [vendorId, key],
      );
      await client.query('COMMIT');
      return { status: 202, replayed: true, row: stored.rows[0] };
    }
    const quote = (
      await client.query(
        `SELECT id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency, destination_amount, destination_unit,
                identifiers, expires_at, used_at, now() AS now
           FROM purchase_quotes WHERE id = $1 AND vendor_id = $2 FOR UPDATE`,
        [quoteId, vendorId],
      )
    ).rows[0];
    if (!quote) throw new Refusal(404, 'NOT_FOUND');
    if (quote.used_at) throw new Refusal(409, 'QUOTE_ALREADY_USED');
    if (quote.expires_at <= quote.now) throw new Refusal(409, 'QUOTE_EXPIRED');
    const day = johannesburgDay(quote.now);
    await client.query(`INSERT INTO purchase_daily_allowances (vendor_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [vendorId, day]);
    const allowance = await client.query(
      `UPDATE purchase_daily_allowances SET used_cents = used_cents + $3 WHERE vendor_id = $1 AND day = $2 AND used_cents + $3 <= $4 RETURNING used_cents`,
      [vendorId, day, quote.charge_cents, DAILY_CAP_CENTS],
    );
    if (allowance.rowCount === 0) throw new Refusal(422, 'DAILY_CAP_EXCEEDED');
    await client.query(`UPDATE purchase_quotes SET used_at = $2 WHERE id = $1`, [quote.id, quote.now]);
    const inserted = await client.query(
      `INSERT INTO purchase_transactions (id, vendor_id, reference, quote_id, product_id, pricing_version_id, status, charge_cents,
         wholesale_cents, currency, destination_amount, destination_unit, identifiers, admission_day, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $14) RETURNING *`,
      [
        transactionId,
        vendorId,
        reference,
        quote.id,
        quote.product_id,
        quote.pricing_version_id,
        quote.charge_cents,
        quote.wholesale_cents,
        quote.currency,
        quote.destination_amount,
        quote.destination_unit,
        JSON.stringify(quote.identifiers),
        day,
        quote.now,
      ],
    );
    await client.query('COMMIT');
    return { status: 202, replayed: false, row: inserted.rows[0] };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function authenticate(header) {
  const secret = /^Bearer (gwt_(?:(?:test|live)_)?[A-Za-z0-9_-]{43})$/.exec(header ?? '')?.[1];
  if (!secret) return null;
  const hash = createHash('sha256').update(secret, 'utf8').digest('hex');
  const { rows } = await pool.query(
    `SELECT t.vendor_id, t.abilities, v.enabled_abilities FROM api_tokens t JOIN vendors v ON v.id = t.vendor_id
      WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now()`,
    [hash],
  );
  const row = rows[0];
  return row && row.abilities.includes('transactions:write') && row.enabled_abilities.includes('transactions:write') ? row.vendor_id : null;
}

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/health') return send(response, 200, { ok: true });
  if (request.method !== 'POST' || request.url !== '/transactions') return send(response, 404, { success: false });
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    try {
      const vendorId = await authenticate(request.headers.authorization);
      if (!vendorId) return send(response, 401, { success: false, error: { code: 'UNAUTHENTICATED' } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || typeof body.quote_id !== 'string' || typeof body.reference !== 'string') {
        return send(response, 422, { success: false, error: { code: 'VALIDATION_FAILED' } });
      }
      const result = await admit(vendorId, key, body.quote_id, body.reference);
      if (result.replayed) response.setHeader('Idempotent-Replayed', 'true');
      send(response, result.status, { success: true, message: 'Accepted', data: view(result.row) });
    } catch (error) {
      if (error instanceof Refusal) return send(response, error.status, { success: false, error: { code: error.message } });
      send(response, 500, { success: false, error: { code: 'INTERNAL', message: error.message } });
    }
  });
});

server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 4200), '127.0.0.1');
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
