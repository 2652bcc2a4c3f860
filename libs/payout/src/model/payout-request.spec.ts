import { batchFingerprint, batchFingerprints, canonicalJson, payoutFingerprint, type PayoutRequestInput } from './payout-request.js';

const base: PayoutRequestInput = {
  reference: 'r1',
  amount: '100.00',
  currency: 'ZAR',
  method: 'bank_a_instant_money',
  recipient: { first_name: 'T', surname: 'M', phone: '27821234567', id_type: 'RSAID', id_number: '8001015009087', country_of_issue: 'ZA', nationality: 'ZA' },
  metadata: { b: 1, a: 'x' },
};

describe('payout fingerprint', () => {
  it('ignores key order and treats absent and null optional fields alike', () => {
    const reordered: PayoutRequestInput = {
      metadata: { a: 'x', b: 1 },
      recipient: { ...base.recipient, middle_name: null, email: null, bank_account: null },
      method: base.method,
      currency: 'ZAR',
      amount: '100.00',
      reference: 'r1',
    };
    expect(payoutFingerprint(reordered)).toBe(payoutFingerprint(base));
    expect(payoutFingerprint({ ...base, metadata: undefined })).toBe(payoutFingerprint({ ...base, metadata: {} }));
  });

  it.each([
    ['amount', { amount: '100.01' }],
    ['method', { method: 'bank_b_cardless' }],
    ['metadata value', { metadata: { a: 'x', b: 2 } }],
    ['metadata type', { metadata: { a: 'x', b: '1' } }],
    ['recipient', { recipient: { ...base.recipient, date_of_birth: '1980-01-01' } }],
  ])('changes with the %s', (_label, change) => {
    expect(payoutFingerprint({ ...base, ...change } as PayoutRequestInput)).not.toBe(payoutFingerprint(base));
  });

  it('binds a batch to its items and their order', () => {
    const other = { ...base, reference: 'r2' };
    expect(batchFingerprint('b', [base, other])).toBe(batchFingerprint('b', [base, other]));
    expect(batchFingerprint('b', [base, other])).not.toBe(batchFingerprint('b', [other, base]));
    expect(batchFingerprint('b', [base])).not.toBe(batchFingerprint('c', [base]));
  });

  it('computes the batch and item fingerprints together exactly as one by one', () => {
    const items: PayoutRequestInput[] = [
      base,
      { ...base, reference: 'r2', metadata: { 'quote"d': 'a\\b', z: null, n: 1.5 } },
      { ...base, reference: 'r3', metadata: undefined, recipient: { ...base.recipient, bank_account: { bank_name: 'B', account_number: '123456', account_name: 'A', branch_code: '250655' } } },
    ];
    for (const reference of ['b', 'batch/with:"quotes"', 'ünïcode-ref']) {
      expect(batchFingerprints(reference, items)).toEqual({ batch: batchFingerprint(reference, items), items: items.map(payoutFingerprint) });
    }
    expect(batchFingerprints('b', [base]).batch).not.toBe(batchFingerprints('b', [{ ...base, amount: '100.01' }]).batch);
  });

  it('writes canonical JSON with sorted keys', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });
});
