import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import {
  PayoutProviderClient,
  ProviderHttpError,
  ProviderNotConfiguredError,
  ProviderRejectedError,
  ProviderTimeoutError,
  PurchaseProviderClient,
  type CashSendSubmission,
  type CreatePurchaseTransaction,
  type PurchaseProviderTransaction,
  type PurchaseTransactionLookup,
  type ProviderProduct,
  type VoucherSubmission,
} from '#providers';
import { createSandboxApp } from '../apps/provider-sandbox/src/create-sandbox-app.js';
import { ManualSandboxClock } from '../apps/provider-sandbox/src/sandbox-clock.js';
import { eventually as eventuallyWithin } from './support/payout-stack.js';

// Short, distinct delays so every test value plays out in well under a second or two.
const DELAYS = {
  completeDelayMs: 150,
  reversalDelayMs: 300,
  rtcSettleDelayMs: 200,
  lateStatusDelayMs: 500,
  timeoutHangMs: 1_500,
  callbackTimeoutMs: 500,
};
const CLIENT_TIMEOUT_MS = 500;
const API_KEY = 'e2e-sandbox-key';

interface ReceivedCallback {
  transaction_id: number;
  external_id: string;
  status: string;
}

async function listenOnFreePort(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
}

/** The sandbox answers within milliseconds, so a short deadline polled often. */
const eventually = <T>(probe: () => Promise<T>, timeoutMs = 3_000): Promise<T> => eventuallyWithin(probe, timeoutMs, 25);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function found(lookup: PurchaseTransactionLookup): PurchaseProviderTransaction {
  if (lookup.outcome === 'not_found') throw new Error('transaction not found');
  return lookup;
}

describe('provider sandbox, driven through the provider clients', () => {
  let app: INestApplication;
  let baseUrl: string;
  let clock: ManualSandboxClock;
  let purchase: PurchaseProviderClient;
  let payout: PayoutProviderClient;
  let callbackServer: Server;
  let callbackUrl: string;
  const callbacks: ReceivedCallback[] = [];
  let sequence = 0;
  const uniqueId = (label: string) => `e2e-${label}-${Date.now()}-${++sequence}`;

  beforeAll(async () => {
    clock = new ManualSandboxClock();
    app = await createSandboxApp({ ...DELAYS, apiKey: API_KEY, clock, logger: false });
    baseUrl = await listenOnFreePort(app);
    const clientOptions = { baseUrl, apiKey: API_KEY, timeoutMs: CLIENT_TIMEOUT_MS, production: true, readRetryBackoffMs: 20 };
    purchase = new PurchaseProviderClient(clientOptions);
    payout = new PayoutProviderClient(clientOptions);

    callbackServer = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        callbacks.push(JSON.parse(body) as ReceivedCallback);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/provider/callback/secret-token`;
  });

  afterAll(async () => {
    await app.close();
    callbackServer.closeAllConnections();
    await new Promise((resolve) => callbackServer.close(resolve));
  });

  const callbacksFor = (externalId: string) => callbacks.filter((callback) => callback.external_id === externalId).map((c) => c.status);

  /** A cash-send request whose phone ends in the given test value. */
  const cash = (phoneSuffix: string, overrides: Partial<CashSendSubmission> = {}): CashSendSubmission => ({
    merchantReference: uniqueId(`GW_PO_cash${phoneSuffix}`),
    amount: '200.00',
    phone: `278212345${phoneSuffix}`,
    recipient: { firstName: 'Thandi', surname: 'Mokoena', idType: 'RSAID', idNumber: '8001015009087' },
    ...overrides,
  });

  const sandboxGet = (path: string, apiKey: string | null = API_KEY) =>
    fetch(`${baseUrl}${path}`, { headers: apiKey === null ? {} : { 'x-api-key': apiKey } });

  const witness = async (query: string) =>
    (await (await sandboxGet(`/__sandbox/submissions?${query}`)).json()) as { count: number; duplicate_attempts: number };

  describe('health and API key', () => {
    it('answers health probes without a key', async () => {
      expect((await sandboxGet('/health/live', null)).status).toBe(200);
      expect((await sandboxGet('/health/ready', null)).status).toBe(200);
    });

    it.each(['/dvs/v1/products', '/dvs/v1/transactions?external_id=x', '/rtc/v1/payments/x', '/vouchers/v1/vouchers/x', '/__sandbox/submissions/summary'])(
      'refuses %s without or with a wrong X-Api-Key, with a JSON 401',
      async (path) => {
        for (const key of [null, 'wrong-key']) {
          const response = await sandboxGet(path, key);
          expect(response.status).toBe(401);
          expect(await response.json()).toEqual({ errors: [{ code: 'UNAUTHORIZED', message: expect.any(String) }] });
        }
      },
    );

    it('refuses a money-moving POST without a key and creates nothing', async () => {
      const externalId = uniqueId('nokey');
      const response = await fetch(`${baseUrl}/dvs/v1/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ external_id: externalId, product_id: 10101, credit_party_identifier: { mobile_number: '27821234510' } }),
      });
      expect(response.status).toBe(401);
      expect(await witness(`external_id=${externalId}`)).toMatchObject({ count: 0 });
    });

    it('surfaces a wrong key as a rejection through the client', async () => {
      const wrongKey = new PurchaseProviderClient({ baseUrl, apiKey: 'nope', production: true });
      await expect(wrongKey.listCountries()).rejects.toMatchObject({ code: 'PROVIDER_REJECTED', status: 401 });
    });
  });

  describe('catalogue', () => {
    let products: ProviderProduct[];

    beforeAll(async () => {
      products = await purchase.listAllProducts();
    });

    it('lists services, countries and operators with country and prefixes', async () => {
      expect((await purchase.listServices()).length).toBeGreaterThanOrEqual(5);
      const countries = await purchase.listCountries();
      expect(countries.length).toBeGreaterThanOrEqual(3);
      expect(countries.map((country) => country.iso_code)).toEqual(expect.arrayContaining(['ZAF', 'NGA', 'KEN']));
      const operators = await purchase.listOperators();
      const mobileOperators = operators.filter((operator) => operator.mobile_prefixes.length > 0);
      expect(mobileOperators.length).toBeGreaterThanOrEqual(6);
      for (const operator of operators) expect(operator.country.iso_code).toMatch(/^[A-Z]{3}$/);
    });

    it('has at least 40 products of every kind, with exact decimal prices and requirement groups', () => {
      expect(products.length).toBeGreaterThanOrEqual(40);
      const types = new Set(products.map((product) => product.type));
      for (const type of ['FIXED_VALUE_RECHARGE', 'RANGED_VALUE_RECHARGE', 'FIXED_VALUE_PIN_PURCHASE', 'FIXED_VALUE_ESIM_PURCHASE', 'RANGED_VALUE_PAYMENT']) {
        expect(types).toContain(type);
      }
      expect(products.some((product) => product.service.name === 'Data' && product.destination_amount !== null)).toBe(true);
      for (const product of products) {
        expect(Number.isInteger(product.id)).toBe(true);
        expect(product.required_credit_party_identifier_fields.length).toBeGreaterThan(0);
        for (const group of [
          product.required_debit_party_identifier_fields,
          product.required_sender_fields,
          product.required_beneficiary_fields,
          product.required_statement_identifier_fields,
          product.required_additional_identifier_fields,
        ]) {
          expect(Array.isArray(group)).toBe(true);
        }
        if (product.destination_range) {
          expect(product.destination_amount).toBeNull();
          expect(product.wholesale_rate).toMatch(/^\d+\.\d+$/);
          expect(product.wholesale_price).toBeNull();
        } else {
          expect(product.destination_amount).toMatch(/^\d+\.\d{2}$/);
          expect(product.wholesale_price).toMatch(/^\d+\.\d{2}$/);
          expect(product.wholesale_rate).toBeNull();
        }
      }
      const bill = products.find((product) => product.type === 'RANGED_VALUE_PAYMENT')!;
      expect(bill.required_credit_party_identifier_fields).toEqual([['account_number']]);
      expect(bill.supported_lookups).toContain('statement');
    });

    it('pages consistently and filters by type, country, operator and service', async () => {
      const first = await purchase.listProducts({ page: 1, perPage: 10 });
      const second = await purchase.listProducts({ page: 2, perPage: 10 });
      expect(first.total).toBe(products.length);
      expect(first.totalPages).toBe(Math.ceil(products.length / 10));
      expect(first.items).toHaveLength(10);
      expect(second.items.map((product) => product.id)).toEqual(products.slice(10, 20).map((product) => product.id));

      const pins = await purchase.listAllProducts({ type: 'FIXED_VALUE_PIN_PURCHASE' });
      expect(pins.length).toBeGreaterThan(0);
      expect(pins.every((product) => product.type === 'FIXED_VALUE_PIN_PURCHASE')).toBe(true);
      const kenya = await purchase.listAllProducts({ countryIsoCode: 'KEN' });
      expect(kenya.length).toBeGreaterThan(0);
      expect(kenya.every((product) => product.operator.country.iso_code === 'KEN')).toBe(true);
      const vodacom = await purchase.listAllProducts({ operatorId: 101 });
      expect(vodacom.every((product) => product.operator.id === 101)).toBe(true);
      const esims = await purchase.listAllProducts({ serviceId: 4 });
      expect(esims.length).toBeGreaterThan(0);
      expect(esims.every((product) => product.type === 'FIXED_VALUE_ESIM_PURCHASE')).toBe(true);
    });

    it('reads one product by id, and answers null for an unknown id', async () => {
      expect(await purchase.getProduct(products[5].id)).toEqual(products[5]);
      expect(await purchase.getProduct(999_999)).toBeNull();
    });

    it('is the same catalogue on every start (deterministic)', async () => {
      const other = await createSandboxApp({ apiKey: API_KEY, logger: false });
      try {
        const otherClient = new PurchaseProviderClient({ baseUrl: await listenOnFreePort(other), apiKey: API_KEY, production: true });
        expect(await otherClient.listAllProducts()).toEqual(products);
      } finally {
        await other.close();
      }
    });
  });

  describe('lookups', () => {
    it('finds operators by mobile number prefix', async () => {
      expect((await purchase.lookupMobileNumber('27821234567')).map((operator) => operator.name)).toEqual(['Vodacom ZA']);
      expect((await purchase.lookupMobileNumber('2348031234567'))[0].name).toBe('MTN Nigeria');
      expect(await purchase.lookupMobileNumber('15551234567')).toEqual([]);
    });

    it('answers a bill statement with a decimal amount due and a masked holder', async () => {
      const statement = await purchase.lookupStatement({ productId: 11001, accountNumber: '5500123456' });
      expect(statement.amount_due).toMatch(/^\d+\.\d{2}$/);
      expect(statement.due_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(statement.account_holder).toMatch(/^[A-Z]\*+ /);
      expect(await purchase.lookupStatement({ productId: 11001, accountNumber: '5500123456' })).toEqual(statement);
    });

    it('refuses a lookup the product does not support', async () => {
      await expect(purchase.lookupStatement({ productId: 10101, accountNumber: '1' })).rejects.toMatchObject({
        status: 400,
        providerCode: 'LOOKUP_NOT_SUPPORTED',
      });
    });

    it('answers account and eSIM lookups deterministically, without PINs or activation codes', async () => {
      const request = { productId: 12001, creditPartyIdentifier: { mobile_number: '27821234599' } };
      const benefits = await purchase.lookupEsimBenefits(request);
      const status = await purchase.lookupEsimStatus(request);
      expect(await purchase.lookupEsimBenefits(request)).toEqual(benefits);
      expect(benefits.benefits[0]).toMatchObject({ type: 'DATA', unit: 'MB', total: '1024' });
      expect(['INSTALLED', 'NOT_INSTALLED']).toContain(status.status);
      const account = await purchase.lookupAccount({ productId: 10101, creditPartyIdentifier: { mobile_number: '27821234599' } });
      expect(account).toMatchObject({ valid: true, operator: { id: 101 } });
      const everything = JSON.stringify([benefits, status, account]);
      expect(everything).not.toMatch(/LPA:|activation_code|"pin"|iccid/i);
    });
  });

  describe('purchase transactions and test values', () => {
    const AIRTIME_R10 = 10101;
    const create = (suffix: string, overrides: Partial<CreatePurchaseTransaction> = {}) => {
      const externalId = uniqueId(`p${suffix}`);
      const request: CreatePurchaseTransaction = {
        externalId,
        productId: AIRTIME_R10,
        creditPartyIdentifier: { mobile_number: `278212345${suffix}` },
        callbackUrl,
        ...overrides,
      };
      return { externalId, promise: purchase.createTransaction(request) };
    };
    const completedLater = (id: number) =>
      eventually(async () => {
        const transaction = found(await purchase.getTransaction(id));
        expect(transaction.outcome).toBe('completed');
        return transaction;
      });

    it('any other value: submitted, completed about a second later, with a callback', async () => {
      const { externalId, promise } = create('10');
      const created = await promise;
      expect(created).toMatchObject({ outcome: 'in_progress', providerStatus: 'SUBMITTED', externalId, wholesaleAmount: '9.65' });
      const completed = await completedLater(created.providerTransactionId);
      expect(completed.completedAt).not.toBeNull();
      expect(completed.fulfilment).toBeNull();
      await eventually(async () => expect(callbacksFor(externalId)).toEqual(['COMPLETED']));
      expect(callbacks.find((callback) => callback.external_id === externalId)?.transaction_id).toBe(created.providerTransactionId);
    });

    it('gives up a callback whose receiver never answers after its timeout, fire and forget', async () => {
      // A receiver that reads the callback and never answers.
      const opened: number[] = [];
      const closed: number[] = [];
      const silent = createServer((request) => {
        opened.push(Date.now());
        request.resume();
        request.socket.on('close', () => closed.push(Date.now()));
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/provider/callback/secret-token`;
        const { promise } = create('10', { callbackUrl: silentUrl });
        await promise;
        // Cut by the sandbox (DELAYS.callbackTimeoutMs is 500 ms), not by this server, which never closes it.
        await eventually(async () => expect(closed).toHaveLength(1), 5_000);
        expect(opened).toHaveLength(1);
        expect(closed[0] - opened[0]).toBeGreaterThanOrEqual(400);
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('prices a ranged amount exactly and refuses amounts off the step or out of range', async () => {
      const [rangedProduct] = await purchase.listAllProducts({ operatorId: 101, type: 'RANGED_VALUE_RECHARGE' });
      expect(rangedProduct).toMatchObject({ destination_range: { min: '5.00', max: '1000.00', step: '1.00' }, wholesale_rate: '0.965' });
      const ranged = await purchase.createTransaction({
        externalId: uniqueId('ranged'),
        productId: rangedProduct.id,
        destinationAmount: '37.00',
        creditPartyIdentifier: { mobile_number: '27821234511' },
      });
      expect(ranged).toMatchObject({ destinationAmount: '37.00', destinationUnit: 'ZAR', wholesaleAmount: '35.71' });
      for (const destinationAmount of ['37.50', '4.00', '1001.00', undefined]) {
        await expect(
          purchase.createTransaction({
            externalId: uniqueId('ranged-bad'),
            productId: rangedProduct.id,
            destinationAmount,
            creditPartyIdentifier: { mobile_number: '27821234511' },
          }),
        ).rejects.toMatchObject({ status: 400 });
      }
    });

    it('refuses a request missing the product requirements', async () => {
      await expect(purchase.createTransaction({ externalId: uniqueId('noid'), productId: AIRTIME_R10 })).rejects.toMatchObject({
        status: 400,
        providerCode: 'MISSING_REQUIRED_FIELD',
        outcomeUnknown: false,
      });
    });

    it('delivers a PIN and serial once a PIN product completes, kept out of JSON', async () => {
      const pinProduct = (await purchase.listAllProducts({ type: 'FIXED_VALUE_PIN_PURCHASE' }))[0];
      const created = await create('12', { productId: pinProduct.id }).promise;
      expect(created.fulfilment).toBeNull();
      const completed = await completedLater(created.providerTransactionId);
      const fulfilment = completed.fulfilment!.reveal();
      expect(fulfilment).toMatchObject({ kind: 'pin', pin: expect.stringMatching(/^\d{16}$/), serial: expect.stringMatching(/^SN\d{12}$/) });
      if (fulfilment.kind !== 'pin') throw new Error('expected a PIN');
      expect(JSON.stringify(completed)).not.toContain(fulfilment.pin);
    });

    it('delivers eSIM activation data once an eSIM product completes', async () => {
      const created = await create('13', { productId: 12002 }).promise;
      const fulfilment = (await completedLater(created.providerTransactionId)).fulfilment!.reveal();
      expect(fulfilment).toMatchObject({
        kind: 'esim',
        iccid: expect.stringMatching(/^8927\d{15}$/),
        activationCode: expect.stringMatching(/^LPA:1\$/),
      });
    });

    it('pays a bill by account number', async () => {
      const created = await purchase.createTransaction({
        externalId: uniqueId('bill'),
        productId: 11001,
        destinationAmount: '123.45',
        creditPartyIdentifier: { account_number: '5500123410' },
      });
      expect(created).toMatchObject({ destinationAmount: '123.45', wholesaleAmount: '123.45' });
      await completedLater(created.providerTransactionId);
    });

    it('01: declined by the operator, with a callback', async () => {
      const { externalId, promise } = create('01');
      const created = await promise;
      const declined = await eventually(async () => {
        const transaction = found(await purchase.getTransaction(created.providerTransactionId));
        expect(transaction.outcome).toBe('failed');
        return transaction;
      });
      expect(declined.providerStatus).toBe('DECLINED-OPERATOR-REJECTED');
      await eventually(async () => expect(callbacksFor(externalId)).toEqual(['DECLINED']));
    });

    it('02: the submission times out, but the provider created it; lookup by external id finds it completed', async () => {
      const { externalId, promise } = create('02');
      const error = await promise.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderTimeoutError);
      expect(error).toMatchObject({ outcomeUnknown: true });
      const lookedUp = await eventually(async () => {
        const transaction = found(await purchase.findTransactionByExternalId(externalId));
        expect(transaction.outcome).toBe('completed');
        return transaction;
      });
      expect(lookedUp.externalId).toBe(externalId);
      expect(await witness(`external_id=${externalId}`)).toEqual({ external_id: externalId, count: 1, duplicate_attempts: 0 });
    });

    it('03: the submission answers 5xx and the provider created nothing', async () => {
      const { externalId, promise } = create('03');
      const error = await promise.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderHttpError);
      expect(error).toMatchObject({ status: 500, outcomeUnknown: true });
      expect(await purchase.findTransactionByExternalId(externalId)).toEqual({ outcome: 'not_found' });
      expect(await witness(`external_id=${externalId}`)).toMatchObject({ count: 1 });
    });

    it('04: completes, then is reversed a few seconds later, with both callbacks', async () => {
      const { externalId, promise } = create('04');
      const created = await promise;
      await completedLater(created.providerTransactionId);
      const reversed = await eventually(async () => {
        const transaction = found(await purchase.getTransaction(created.providerTransactionId));
        expect(transaction.outcome).toBe('reversed');
        return transaction;
      });
      expect(reversed.reversedAt).not.toBeNull();
      await eventually(async () => expect(callbacksFor(externalId)).toEqual(['COMPLETED', 'REVERSED']));
    });

    it('05: stays in progress for ever, with no callback', async () => {
      const { externalId, promise } = create('05');
      const created = await promise;
      await pause(DELAYS.completeDelayMs + DELAYS.reversalDelayMs + 200);
      expect(found(await purchase.getTransaction(created.providerTransactionId))).toMatchObject({
        outcome: 'in_progress',
        providerStatus: 'SUBMITTED',
      });
      expect(callbacksFor(externalId)).toEqual([]);
    });

    it('06: the completion callback arrives while the lookup still says in progress', async () => {
      const { externalId, promise } = create('06');
      const created = await promise;
      await eventually(async () => expect(callbacksFor(externalId)).toEqual(['COMPLETED']));
      expect(found(await purchase.getTransaction(created.providerTransactionId)).outcome).toBe('in_progress');
      await completedLater(created.providerTransactionId);
      expect(callbacksFor(externalId)).toEqual(['COMPLETED']);
    });

    it('07: completes, but no callback is ever sent', async () => {
      const { externalId, promise } = create('07');
      const created = await promise;
      await completedLater(created.providerTransactionId);
      await pause(200);
      expect(callbacksFor(externalId)).toEqual([]);
    });

    it('refuses a second create with the same external id (409) and creates nothing more', async () => {
      const { externalId, promise } = create('20');
      const first = await promise;
      const error = await purchase
        .createTransaction({ externalId, productId: AIRTIME_R10, creditPartyIdentifier: { mobile_number: '27821234521' } })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderRejectedError);
      expect(error).toMatchObject({ status: 409, providerCode: 'EXTERNAL_ID_ALREADY_USED', outcomeUnknown: true });
      expect(found(await purchase.findTransactionByExternalId(externalId)).providerTransactionId).toBe(first.providerTransactionId);
      expect(await witness(`external_id=${externalId}`)).toEqual({ external_id: externalId, count: 2, duplicate_attempts: 1 });
    });

    it('answers not_found for an unknown transaction id or external id', async () => {
      expect(await purchase.getTransaction(1)).toEqual({ outcome: 'not_found' });
      expect(await purchase.findTransactionByExternalId(uniqueId('never'))).toEqual({ outcome: 'not_found' });
    });
  });

  describe('payout providers and test values', () => {
    const rtc = (accountSuffix: string) => ({
      merchantReference: uniqueId(`GW_PO_rtc${accountSuffix}`),
      amount: '1234.56',
      bankAccount: { bankName: 'Sandbox Bank', accountNumber: `62000012${accountSuffix}`, accountName: 'T Mokoena', branchCode: '250655' },
      narration: 'GATEWAY_EFT_test',
    });
    const voucher = (cents: string): VoucherSubmission => ({
      merchantReference: uniqueId(`GW_PO_v${cents}`),
      amount: `150.${cents}`,
      productCode: '311',
      vendorSlug: 'acme-wallet',
      accountAlias: 'gateway-e2e',
    });
    const settlesTo = (channel: Parameters<PayoutProviderClient['getPayoutStatus']>[0], reference: string, outcome: string) =>
      eventually(async () => {
        const status = await payout.getPayoutStatus(channel, reference);
        expect(status.outcome).toBe(outcome);
        return status;
      });

    describe('cash-send rails', () => {
      it.each(['bank_a_instant_money', 'bank_b_cardless'] as const)('%s: any other value is paid at once with PIN and serial', async (rail) => {
        const submission = cash('10');
        const paid = await payout.submitCashSend(rail, submission);
        expect(paid).toMatchObject({ outcome: 'paid', found: true, replayed: false, amount: '200.00' });
        expect(paid.providerReference).toEqual(expect.any(String));
        expect(paid.delivery!.reveal()).toMatchObject({
          pin: expect.stringMatching(/^\d{5}$/),
          serial: expect.stringMatching(/^\d{10}$/),
          expiresAt: expect.any(String),
        });
        expect((await payout.getPayoutStatus(rail, submission.merchantReference)).outcome).toBe('paid');
      });

      it('is merchant-reference idempotent: a second submission returns the same payment', async () => {
        const submission = cash('11');
        const first = await payout.submitCashSend('bank_a_instant_money', submission);
        const again = await payout.submitCashSend('bank_a_instant_money', { ...submission, amount: '500.00' });
        expect(again).toMatchObject({ replayed: true, providerReference: first.providerReference, amount: '200.00' });
        expect(again.delivery!.reveal()).toEqual(first.delivery!.reveal());
        expect(await witness(`merchant_reference=${submission.merchantReference}`)).toEqual({
          merchant_reference: submission.merchantReference,
          count: 2,
          duplicate_attempts: 1,
        });
      });

      it('refuses amounts that are not R10 multiples with 422 and creates nothing', async () => {
        const submission = cash('12', { amount: '155.00' });
        await expect(payout.submitCashSend('bank_b_cardless', submission)).rejects.toMatchObject({
          status: 422,
          providerCode: 'AMOUNT_INCREMENT_INVALID',
        });
        expect(await payout.getPayoutStatus('bank_b_cardless', submission.merchantReference)).toMatchObject({ found: false, outcome: 'unknown' });
      });

      it('01: rejected', async () => {
        const rejected = await payout.submitCashSend('bank_a_instant_money', cash('01'));
        expect(rejected).toMatchObject({ outcome: 'rejected', delivery: null, rejectionReason: 'DECLINED_BY_PROVIDER' });
      });

      it('02: the submission times out, but the provider paid it; a status poll finds it paid', async () => {
        const submission = cash('02');
        await expect(payout.submitCashSend('bank_b_cardless', submission)).rejects.toBeInstanceOf(ProviderTimeoutError);
        const polled = await payout.getPayoutStatus('bank_b_cardless', submission.merchantReference);
        expect(polled.outcome).toBe('paid');
        expect(polled.delivery).not.toBeNull();
      });

      it('03: paid, then reversed a few seconds later', async () => {
        const submission = cash('03');
        expect((await payout.submitCashSend('bank_a_instant_money', submission)).outcome).toBe('paid');
        const reversed = await settlesTo('bank_a_instant_money', submission.merchantReference, 'reversed');
        expect(reversed.delivery).toBeNull();
        expect(reversed.reversedAt).not.toBeNull();
      });

      it('04: the outcome never becomes known', async () => {
        const submission = cash('04');
        expect((await payout.submitCashSend('bank_a_instant_money', submission)).outcome).toBe('pending');
        await pause(DELAYS.reversalDelayMs + 200);
        expect((await payout.getPayoutStatus('bank_a_instant_money', submission.merchantReference)).outcome).toBe('pending');
      });

      it('caps SMS resends at 3, then answers 429 with the cooldown left until 30 minutes have passed', async () => {
        const submission = cash('14');
        await payout.submitCashSend('bank_a_instant_money', submission);
        const ref = submission.merchantReference;
        const remaining: number[] = [];
        for (let resend = 0; resend < 3; resend++) {
          remaining.push((await payout.resendSms('bank_a_instant_money', ref)).resendsRemaining);
        }
        expect(remaining).toEqual([2, 1, 0]);
        const capped = await payout.resendSms('bank_a_instant_money', ref).catch((caught: unknown) => caught);
        expect(capped).toBeInstanceOf(ProviderRejectedError);
        expect(capped).toMatchObject({ status: 429, providerCode: 'SMS_RESEND_LIMITED', retryAfterSeconds: 1800 });
        clock.advance(29 * 60 * 1000);
        await expect(payout.resendSms('bank_a_instant_money', ref)).rejects.toMatchObject({ status: 429, retryAfterSeconds: 60 });
        clock.advance(60 * 1000);
        expect(await payout.resendSms('bank_a_instant_money', ref)).toEqual({ resendsRemaining: 2 });
        // Another payment has its own allowance.
        const other = cash('15');
        await payout.submitCashSend('bank_a_instant_money', other);
        expect(await payout.resendSms('bank_a_instant_money', other.merchantReference)).toEqual({ resendsRemaining: 2 });
      });

      it('refuses to resend for a payment that is not paid, or unknown', async () => {
        const rejected = cash('01');
        await payout.submitCashSend('bank_b_cardless', rejected);
        await expect(payout.resendSms('bank_b_cardless', rejected.merchantReference)).rejects.toMatchObject({ status: 422 });
        await expect(payout.resendSms('bank_b_cardless', uniqueId('none'))).rejects.toMatchObject({ status: 404 });
      });
    });

    describe('RTC EFT', () => {
      it('any other value: pending, then paid after the settle delay; no PIN', async () => {
        const submission = rtc('10');
        const submitted = await payout.submitRtcEft(submission);
        expect(submitted).toMatchObject({ outcome: 'pending', delivery: null, amount: '1234.56' });
        const paid = await settlesTo('rtc_eft', submission.merchantReference, 'paid');
        expect(paid.delivery).toBeNull();
        expect(paid.paidAt).not.toBeNull();
      });

      it('is merchant-reference idempotent', async () => {
        const submission = rtc('11');
        const first = await payout.submitRtcEft(submission);
        const again = await payout.submitRtcEft(submission);
        expect(again).toMatchObject({ replayed: true, providerReference: first.providerReference });
      });

      it('01: rejected', async () => {
        expect((await payout.submitRtcEft(rtc('01'))).outcome).toBe('rejected');
      });

      it('02: the submission times out, but the provider paid it; a status poll finds it paid', async () => {
        const submission = rtc('02');
        await expect(payout.submitRtcEft(submission)).rejects.toBeInstanceOf(ProviderTimeoutError);
        await settlesTo('rtc_eft', submission.merchantReference, 'paid');
      });

      it('03: paid, then reversed', async () => {
        const submission = rtc('03');
        await payout.submitRtcEft(submission);
        await settlesTo('rtc_eft', submission.merchantReference, 'paid');
        await settlesTo('rtc_eft', submission.merchantReference, 'reversed');
      });

      it('04: stays pending for ever', async () => {
        const submission = rtc('04');
        await payout.submitRtcEft(submission);
        await pause(DELAYS.rtcSettleDelayMs + DELAYS.reversalDelayMs + 200);
        expect((await payout.getPayoutStatus('rtc_eft', submission.merchantReference)).outcome).toBe('pending');
      });
    });

    describe('vouchers', () => {
      it('any other cents: paid at once with the voucher gateway UUID, PIN, serial and instructions', async () => {
        const submission = voucher('10');
        const paid = await payout.submitVoucher(submission);
        expect(paid).toMatchObject({ outcome: 'paid', amount: '150.10' });
        expect(paid.providerReference).toMatch(/^[0-9a-f-]{36}$/);
        expect(paid.providerReference).not.toBe(submission.merchantReference);
        expect(paid.delivery!.reveal()).toMatchObject({
          pin: expect.stringMatching(/^\d{16}$/),
          serial: expect.any(String),
          expiresAt: expect.any(String),
          instructions: expect.any(String),
        });
        expect((await payout.getPayoutStatus('voucher', submission.merchantReference)).providerReference).toBe(paid.providerReference);
      });

      it('is merchant-reference idempotent', async () => {
        const submission = voucher('11');
        const first = await payout.submitVoucher(submission);
        const again = await payout.submitVoucher(submission);
        expect(again).toMatchObject({ replayed: true, providerReference: first.providerReference });
        expect(await witness(`merchant_reference=${submission.merchantReference}`)).toMatchObject({ count: 2, duplicate_attempts: 1 });
      });

      it('01: rejected; 04: pending for ever', async () => {
        expect((await payout.submitVoucher(voucher('01'))).outcome).toBe('rejected');
        const unknown = voucher('04');
        expect((await payout.submitVoucher(unknown)).outcome).toBe('pending');
        await pause(DELAYS.reversalDelayMs + 100);
        expect((await payout.getPayoutStatus('voucher', unknown.merchantReference)).outcome).toBe('pending');
      });

      it('02: times out but paid; 03: paid then reversed', async () => {
        const timedOut = voucher('02');
        await expect(payout.submitVoucher(timedOut)).rejects.toBeInstanceOf(ProviderTimeoutError);
        expect((await payout.getPayoutStatus('voucher', timedOut.merchantReference)).outcome).toBe('paid');
        const reversing = voucher('03');
        expect((await payout.submitVoucher(reversing)).outcome).toBe('paid');
        await settlesTo('voucher', reversing.merchantReference, 'reversed');
      });

      it.each([
        { phone: '27821234567' },
        { recipient: { first_name: 'Thandi' } },
        { first_name: 'Thandi' },
        { surname: 'Mokoena' },
        { id_number: '8001015009087' },
        { id_type: 'RSAID' },
        { email: 'a@example.com' },
        { date_of_birth: '1980-01-01' },
      ])('rejects identity or phone fields with 400 and creates nothing: %j', async (extra) => {
        const merchantReference = uniqueId('GW_PO_identity');
        const response = await fetch(`${baseUrl}/vouchers/v1/vouchers`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
          body: JSON.stringify({
            merchant_reference: merchantReference,
            amount: '100.00',
            product_code: '311',
            vendor_slug: 'acme-wallet',
            account_alias: 'gateway-e2e',
            ...extra,
          }),
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ errors: [{ code: 'FIELD_NOT_ALLOWED', message: expect.stringContaining(Object.keys(extra)[0]) }] });
        expect((await payout.getPayoutStatus('voucher', merchantReference)).found).toBe(false);
      });

      it('refuses unknown product codes and amounts outside the product limits', async () => {
        await expect(payout.submitVoucher({ ...voucher('20'), productCode: '999' as '311' })).rejects.toMatchObject({
          status: 400,
          providerCode: 'UNKNOWN_PRODUCT_CODE',
        });
        await expect(payout.submitVoucher({ ...voucher('20'), amount: '4000.01' })).rejects.toMatchObject({
          status: 422,
          providerCode: 'AMOUNT_OUT_OF_RANGE',
        });
      });
    });
  });

  describe('witness', () => {
    it('lists only ids submitted more than once', async () => {
      const once = uniqueId('once');
      await purchase.createTransaction({ externalId: once, productId: 10101, creditPartyIdentifier: { mobile_number: '27821234530' } });
      const twice = uniqueId('twice');
      const request = { externalId: twice, productId: 10101, creditPartyIdentifier: { mobile_number: '27821234531' } };
      await purchase.createTransaction(request);
      await purchase.createTransaction(request).catch(() => undefined);

      const summary = (await (await sandboxGet('/__sandbox/submissions/summary')).json()) as {
        external_ids: Array<{ external_id: string; count: number; duplicate_attempts: number }>;
        merchant_references: Array<{ merchant_reference: string; count: number }>;
      };
      expect(summary.external_ids).toContainEqual({ external_id: twice, count: 2, duplicate_attempts: 1 });
      expect(summary.external_ids.some((entry) => entry.external_id === once)).toBe(false);
      expect(summary.external_ids.every((entry) => entry.count > 1)).toBe(true);
      expect(summary.merchant_references.length).toBeGreaterThan(0);
      expect(summary.merchant_references.every((entry) => entry.count > 1)).toBe(true);
      expect(await witness(`external_id=${uniqueId('never')}`)).toMatchObject({ count: 0, duplicate_attempts: 0 });
    });

    it('needs exactly one of external_id or merchant_reference', async () => {
      expect((await sandboxGet('/__sandbox/submissions')).status).toBe(400);
      expect((await sandboxGet('/__sandbox/submissions?external_id=a&merchant_reference=b')).status).toBe(400);
    });
  });

  describe('clients in production without configuration', () => {
    it('fail closed on every call and send nothing', async () => {
      const purchaseClient = new PurchaseProviderClient({ production: true, apiKey: API_KEY });
      const payoutClient = new PayoutProviderClient({ production: true, baseUrl });
      const externalId = uniqueId('unconfigured');
      await expect(purchaseClient.listProducts()).rejects.toBeInstanceOf(ProviderNotConfiguredError);
      await expect(
        purchaseClient.createTransaction({ externalId, productId: 10101, creditPartyIdentifier: { mobile_number: '27821234510' } }),
      ).rejects.toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED', outcomeUnknown: false });
      const submission = cash('10');
      await expect(payoutClient.submitCashSend('bank_a_instant_money', submission)).rejects.toBeInstanceOf(ProviderNotConfiguredError);
      await expect(payoutClient.getPayoutStatus('voucher', 'x')).rejects.toBeInstanceOf(ProviderNotConfiguredError);
      expect(await witness(`external_id=${externalId}`)).toMatchObject({ count: 0 });
      expect(await witness(`merchant_reference=${submission.merchantReference}`)).toMatchObject({ count: 0 });
    });
  });
});
