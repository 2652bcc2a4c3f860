import { randomUUID } from 'node:crypto';
// The repository itself: the guard under test is its statement's WHERE, which no service path
// reaches with a move the status table refuses (the recordings plan moves with `canMove`).
import { TransactionRepository } from '../../libs/purchase/src/persistence/transaction.repository.js';
import { PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase } from './purchase-helpers.js';

/**
 * TransactionRepository.write's status guard against the real schema: a move the row's status
 * may not make is refused in the statement, and nothing of the recording stays (the row, its
 * status events, the callback markers it would have consumed). No worker runs, so the admitted
 * purchase stays pending for the whole file.
 */
describe('purchase status guard', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: false });

  /** Everything a write of the transaction could change, as the database holds it. */
  const stored = async (id: string) => ({
    row: (await stack.db.query(`SELECT to_jsonb(t) AS row FROM purchase_transactions t WHERE id = $1`, [id]))[0]?.row,
    events: await stack.db.query(`SELECT id, from_status, to_status, provider_status, reason FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id]),
    markers: await stack.db.query(`SELECT id, processed_at FROM purchase_callback_markers WHERE transaction_id = $1 ORDER BY id`, [id]),
  });

  it('refuses a move from a status the table does not allow it from, and leaves the row, its events and its markers as they were', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821239900') });
    const id = bought.transaction.id;
    // A callback marker the refused recording would consume.
    const [marker] = await stack.db.query(`INSERT INTO purchase_callback_markers (transaction_id) VALUES ($1) RETURNING id::text AS id`, [id]);
    const before = await stored(id);
    expect(before.row.status).toBe('pending');
    expect(before.events.map((event: { to_status: string }) => event.to_status)).toEqual(['pending']);

    // completed → reversed, on a pending row: sourcesOf('reversed') is only completed.
    const now = new Date();
    const changes = new Map<string, unknown>([
      ['status', 'reversed'],
      ['updated_at', now],
      ['reversed_at', now],
      ['next_check_at', null],
    ]);
    const repository = stack.gateway.app.get(TransactionRepository);
    await expect(
      stack.db.transaction((manager) =>
        repository.write(manager, id, changes, [{ from: 'completed', to: 'reversed', providerStatus: 'REVERSED', reason: 'status guard test' }], {
          consumeMarkersUpTo: marker.id,
          withView: true,
        }),
      ),
    ).rejects.toThrow(`transaction ${id} is pending: the status guard refused its move to reversed, which may come only from completed`);

    expect(await stored(id)).toEqual(before);
  });

  // (A move of a missing transaction fails earlier, on its status event's foreign key.)
  it('says the transaction does not exist when there is no row to write', async () => {
    const missing = randomUUID();
    const repository = stack.gateway.app.get(TransactionRepository);
    await expect(
      stack.db.transaction((manager) => repository.write(manager, missing, new Map([['last_checked_at', new Date()]]), [])),
    ).rejects.toThrow(`transaction ${missing} does not exist`);
  });
});
