import { PayoutProviderClient, PurchaseProviderClient } from '#providers';
import { SANDBOX_API_KEY, startSandbox, type RunningSandbox } from '../support/purchase-stack.js';

/** The sandbox's settlement report endpoints and the typed clients that read them, over HTTP. */
describe('settlement report endpoints', () => {
  let sandbox: RunningSandbox;
  const day = '2026-04-01';

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => sandbox?.close());

  const get = (path: string, key: string | null = SANDBOX_API_KEY) => fetch(`${sandbox.url}${path}`, { headers: key === null ? {} : { 'x-api-key': key } });

  it('needs the API key and a real calendar day, like every provider route', async () => {
    expect((await get(`/dvs/v1/settlement-reports/${day}`, null)).status).toBe(401);
    expect((await get(`/rtc/v1/settlement-reports/${day}`, 'wrong')).status).toBe(401);
    const badDay = await get('/vouchers/v1/settlement-reports/2026-02-30');
    expect(badDay.status).toBe(400);
    expect(await badDay.json()).toEqual({ errors: [{ code: 'INVALID_DATE', message: expect.any(String) }] });
    expect((await get(`/cashsend/v1/bank_z/settlement-reports/${day}`)).status).toBe(404);
    expect(await (await get(`/cashsend/v1/bank_b_cardless/settlement-reports/${day}`)).json()).toEqual({
      provider: 'bank_b_cardless',
      report_date: day,
      page: 1,
      per_page: 50,
      total_lines: 0,
      total_pages: 1,
      lines: [],
    });
  });

  it('the clients read every page of a long report, amounts as exact cents', async () => {
    for (let index = 0; index < 205; index++) {
      const response = await fetch(`${sandbox.url}/__sandbox/settlement/rtc_eft/extra-lines/${day}`, {
        method: 'POST',
        headers: { 'x-api-key': SANDBOX_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ provider_reference: `p-${index}`, merchant_reference: `m-${index}`, amount: `${index}.07`, status: 'PAID', settled_at: `${day}T10:00:00Z` }),
      });
      expect(response.status).toBe(200);
    }
    const payouts = new PayoutProviderClient({ baseUrl: sandbox.url, apiKey: SANDBOX_API_KEY, timeoutMs: 5_000, production: false });
    const report = await payouts.getSettlementReport('rtc_eft', day);
    expect(report.lines).toHaveLength(205);
    expect(report.lines.map((line) => line.merchantReference)).toEqual(Array.from({ length: 205 }, (_, index) => `m-${index}`));
    expect(report.lines[204]).toMatchObject({ amount: '204.07', amountCents: 20_407n, status: 'settled', providerStatus: 'PAID' });

    const purchases = new PurchaseProviderClient({ baseUrl: sandbox.url, apiKey: SANDBOX_API_KEY, timeoutMs: 5_000, production: false });
    expect((await purchases.getSettlementReport(day)).lines).toEqual([]);
  });
});
