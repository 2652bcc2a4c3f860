// Quick start: buy a Vodacom R12 airtime PIN and pay out R150 in cash, in the sandbox.
// Run: PURCHASE_BASE_URL=… PURCHASE_TOKEN=… PAYOUT_BASE_URL=… PAYOUT_TOKEN=… node quick-start.mjs
import { randomUUID } from 'node:crypto';
import { GatewayApiError, PayoutClient, PurchaseClient } from '@za-gateway/sdk';

const purchase = new PurchaseClient({ baseUrl: process.env.PURCHASE_BASE_URL, token: process.env.PURCHASE_TOKEN });
const payout = new PayoutClient({ baseUrl: process.env.PAYOUT_BASE_URL, token: process.env.PAYOUT_TOKEN });

// Purchase: quote, buy once (the SDK creates the Idempotency-Key), then wait for the outcome.
const quote = await purchase.createQuote({ product_id: 10107, credit_party_identifier: { mobile_number: '27821234567' } });
const { transaction, idempotencyKey } = await purchase.createTransaction({ quote_id: quote.id, reference: `order-${randomUUID()}` });
console.log(`purchase ${transaction.id} accepted (${transaction.status}); keep the key ${idempotencyKey} to retry it safely`);
const final = await purchase.waitForFinal(transaction.id);
console.log(`purchase ${final.id}: ${final.status}, charged ${final.charge_minor} ZAR cents`);

// Payout: the reference is the idempotency key; a cash payout is paid in the answer.
const { payout: cash } = await payout.createPayout({
  reference: `payout-${randomUUID()}`,
  amount: '150.00',
  currency: 'ZAR',
  method: 'bank_a_instant_money',
  recipient: {
    first_name: 'Thabo',
    surname: 'Mokoena',
    phone: '27821234567',
    id_type: 'RSAID',
    id_number: '8001015009087',
    country_of_issue: 'ZA',
    nationality: 'ZA',
  },
});
console.log(`payout ${cash.reference}: ${cash.status}, fee ${cash.fee} ZAR`);

// Errors carry the contract's code (branch on it) and field errors.
try {
  await purchase.createTransaction({ quote_id: quote.id, reference: '' });
} catch (error) {
  if (!(error instanceof GatewayApiError)) throw error;
  console.log(`refused: ${error.status} ${error.code}, fields: ${Object.keys(error.errors).join(', ')}`);
}
