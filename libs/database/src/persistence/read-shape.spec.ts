import { readShape } from './read-shape.js';

interface Item {
  vendorId: string;
  amountCents: bigint;
  paidAt: Date | null;
}

describe('readShape', () => {
  const ITEM = readShape<Item>({ vendorId: 'p.vendor_id', amountCents: ['p.amount_cents', (raw: string) => BigInt(raw)], paidAt: 'p.paid_at' });

  it('aliases each expression to its field, in declaration order', () => {
    expect(ITEM.columns).toBe('p.vendor_id AS "vendorId", p.amount_cents AS "amountCents", p.paid_at AS "paidAt"');
  });

  it('reads exactly the shape fields, converting only those with a converter', () => {
    const paidAt = new Date('2026-01-02T03:04:05Z');
    expect(ITEM.read({ vendorId: 'v1', amountCents: '1250', paidAt, passwordHash: 'not part of the record' })).toStrictEqual({ vendorId: 'v1', amountCents: 1250n, paidAt });
  });

  it('answers the first row as a record, or null for none', () => {
    expect(ITEM.first([])).toBeNull();
    expect(ITEM.first([{ vendorId: 'v2', amountCents: '-5', paidAt: null }])).toStrictEqual({ vendorId: 'v2', amountCents: -5n, paidAt: null });
  });
});
