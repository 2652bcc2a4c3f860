import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
// The repository itself: which callbacks share a statement depends on the turn of the event loop
// they arrive in, which only a direct call controls.
import { TransactionEvidenceRepository } from '../../libs/purchase/src/persistence/transaction-evidence.repository.js';
import { PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase } from './purchase-helpers.js';

/**
 * The provider's callbacks that reach the gateway in one turn of its event loop leave their
 * markers in one statement (TransactionEvidenceRepository.addCallbackMarker); one that the
 * statement cannot take is tried again alone, and only it fails.
 */
describe('callback markers of one turn', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: false });

  const markersOf = (id: string) => stack.db.query(`SELECT provider_status_hint AS hint, processed_at FROM purchase_callback_markers WHERE transaction_id = $1 ORDER BY id`, [id]);

  it('leaves every marker with one statement, and none for an id we do not hold', async () => {
    const ids = (await Promise.all(['27821239931', '27821239932', '27821239933'].map((number) => purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(number) })))).map(
      (bought) => bought.transaction.id,
    );
    await stack.db.query(`UPDATE purchase_transactions SET provider_transaction_id = 987654321 WHERE id = $1`, [ids[2]]);
    const repository = stack.gateway.app.get(TransactionEvidenceRepository);
    const statements = jest.spyOn(stack.gateway.app.get(DataSource), 'query');
    const answers = await Promise.all([
      repository.addCallbackMarker(ids[0], null, 'COMPLETED'),
      repository.addCallbackMarker(ids[1], null, 'DECLINED'),
      // Known by the provider's id alone.
      repository.addCallbackMarker(null, 987654321, 'COMPLETED'),
      repository.addCallbackMarker(randomUUID(), null, 'COMPLETED'),
    ]);
    const sent = statements.mock.calls.map(([text]) => text);
    statements.mockRestore();

    expect(answers).toEqual([true, true, true, false]);
    expect(sent).toHaveLength(1);
    expect(await markersOf(ids[0])).toEqual([{ hint: 'COMPLETED', processed_at: null }]);
    expect(await markersOf(ids[1])).toEqual([{ hint: 'DECLINED', processed_at: null }]);
    expect(await markersOf(ids[2])).toEqual([{ hint: 'COMPLETED', processed_at: null }]);
  });

  it('tries each callback alone when their statement fails: the others keep their markers', async () => {
    const { transaction } = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821239934') });
    const repository = stack.gateway.app.get(TransactionEvidenceRepository);
    // Not a uuid: the shared statement's array cannot take it (the controller never sends one).
    const answers = await Promise.allSettled([repository.addCallbackMarker(transaction.id, null, 'COMPLETED'), repository.addCallbackMarker('not-a-uuid', null, 'COMPLETED')]);
    expect(answers[0]).toEqual({ status: 'fulfilled', value: true });
    expect(answers[1].status).toBe('rejected');
    expect(await markersOf(transaction.id)).toEqual([{ hint: 'COMPLETED', processed_at: null }]);
  });
});
