import { PayoutClient, type PayoutRequest } from '../../packages/sdk/src/index.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';
import { startPayoutStack, type PayoutStack } from '../support/payout-stack.js';

/** The SDK's statement and list operations against the real payout gateway: cursor pages followed to the end. */
describe('SDK statement and lists', () => {
  let stack: PayoutStack;
  let payout: PayoutClient;

  beforeAll(async () => {
    stack = await startPayoutStack({ listen: true });
    const vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 100n });
    payout = new PayoutClient({ baseUrl: stack.gateway.url!, token: vendor.token });
  }, 120_000);
  afterAll(async () => stack?.close());

  it('follows every cursor page of the statement and the payout list, and reads the summary', async () => {
    const prefix = uniqueReference('sdk-stmt');
    for (const suffix of ['a', 'b', 'c']) await payout.createPayout(cashPayout('55', { reference: `${prefix}-${suffix}`, amount: '10.00' }) as PayoutRequest);

    const lines = await payout.listStatement({ order: 'asc', per_page: 2 }).toArray();
    // Funding, then per payout: reserved, settled and its fee.
    expect(lines.map((line) => line.category)).toEqual(['funding', ...Array.from({ length: 3 }, () => ['payout_reserved', 'payout_settled', 'fee']).flat()]);
    const account = await payout.getAccount();
    expect(lines.at(-1)).toMatchObject({ available_after: account.available, reserved_after: account.reserved });

    const summary = await payout.getStatementSummary();
    expect(summary.closing).toEqual({ available: account.available, reserved: account.reserved });

    const listed = await payout.listPayouts({ reference_prefix: prefix, per_page: 1 }).toArray();
    expect(listed.map((item) => item.reference)).toEqual([`${prefix}-c`, `${prefix}-b`, `${prefix}-a`]);
    expect(await payout.listBatches().toArray()).toEqual([]);
  }, 60_000);
});
