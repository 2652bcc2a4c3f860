import { randomUUID } from 'node:crypto';
import type { QuoteView, TransactionView } from '#purchase';
import { bearer, eventually, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';

/** A purchase as the tests read it: the contract's Quote and Transaction, and what was sent. */
export interface Purchase {
  quote: QuoteView;
  transaction: TransactionView;
  key: string;
  reference: string;
}

/** The contract's typical flow up to the 202: quote, then purchase with a fresh key and reference. */
export async function purchase(stack: PurchaseStack, vendor: TestVendor, quoteBody: Record<string, unknown>): Promise<Purchase> {
  const quoteResponse = await stack.gateway.http().post('/api/v1/quotes').set(bearer(vendor.token)).send(quoteBody);
  if (quoteResponse.status !== 201) throw new Error(`quote failed: ${quoteResponse.status} ${JSON.stringify(quoteResponse.body)}`);
  const key = `key-${randomUUID()}`;
  const reference = `ref-${randomUUID()}`;
  const response = await stack.gateway
    .http()
    .post('/api/v1/transactions')
    .set(bearer(vendor.token))
    .set('Idempotency-Key', key)
    .send({ quote_id: quoteResponse.body.data.id, reference });
  if (response.status !== 202) throw new Error(`purchase failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { quote: quoteResponse.body.data, transaction: response.body.data, key, reference };
}

export function mobile(number: string) {
  return { credit_party_identifier: { mobile_number: number } };
}

export async function readTransaction(stack: PurchaseStack, vendor: TestVendor, id: string): Promise<TransactionView> {
  const response = await stack.gateway.http().get(`/api/v1/transactions/${id}`).set(bearer(vendor.token));
  if (response.status !== 200) throw new Error(`read failed: ${response.status}`);
  return response.body.data;
}

/** Waits until the transaction reaches one of the statuses. */
export function settle(stack: PurchaseStack, vendor: TestVendor, id: string, statuses: string[], timeoutMs = 15_000) {
  return eventually(() => readTransaction(stack, vendor, id), (transaction) => statuses.includes(transaction.status), timeoutMs);
}

export async function usedAllowance(stack: PurchaseStack, vendorId: string): Promise<number> {
  const [row] = await stack.db.query(`SELECT COALESCE(sum(used_cents), 0)::int AS used FROM purchase_daily_allowances WHERE vendor_id = $1`, [vendorId]);
  return row.used;
}
