import type { ExceptionDeskItem } from '#reconciliation';
import { disagreementWithProvider, providerClaim } from './exception-evidence.js';

const item = (over: Partial<ExceptionDeskItem>): ExceptionDeskItem =>
  ({ domain: 'payout', recordStatus: 'paid', details: {}, ...over }) as ExceptionDeskItem;

describe('record_corrected: does the record agree with the provider?', () => {
  it('reads what the provider said from a report line, a lookup answer or a status conflict', () => {
    expect(providerClaim({ provider_status: 'PAID', provider_amount: '150.00' })).toEqual({ status: 'PAID', amount: '150.00', reference: null });
    expect(providerClaim({ answered: { status: 'REVERSED', amount: '20.00', merchant_reference: 'M-1' } })).toEqual({ status: 'REVERSED', amount: '20.00', reference: 'M-1' });
    expect(providerClaim({ provider_says: 'PAID' })).toEqual({ status: 'PAID', amount: null, reference: null });
  });

  it('agrees once a verified answer moved the record to the provider status, amount and reference', () => {
    expect(disagreementWithProvider(item({ details: { provider_status: 'PAID', provider_amount: '150.00', our_amount: '150.00' } }))).toBeNull();
    expect(disagreementWithProvider(item({ recordStatus: 'failed', details: { provider_says: 'REJECTED' } }))).toBeNull();
    expect(disagreementWithProvider(item({ domain: 'purchase', recordStatus: 'completed', details: { provider_status: 'COMPLETED' } }))).toBeNull();
  });

  it('refuses a record in another status, another amount or reference, no record, or no final provider status', () => {
    expect(disagreementWithProvider(item({ recordStatus: 'failed', details: { provider_status: 'PAID' } }))).toContain('The record is failed; the provider said PAID');
    expect(disagreementWithProvider(item({ details: { provider_status: 'PAID', provider_amount: '151.00', our_amount: '150.00' } }))).toContain('amount 151.00 differs');
    expect(disagreementWithProvider(item({ details: { answered: { status: 'PAID', merchant_reference: 'M-2' }, sent: { merchant_reference: 'M-1' } } }))).toContain('about M-2, not M-1');
    expect(disagreementWithProvider(item({ details: { provider_status: 'PAID', provider_reference: 'X', our_provider_reference: 'Y' } }))).toContain('reference X differs');
    expect(disagreementWithProvider(item({ recordStatus: null, details: { provider_status: 'PAID' } }))).toContain('no record of ours');
    expect(disagreementWithProvider(item({ details: {} }))).toContain('no provider status');
    expect(disagreementWithProvider(item({ details: { provider_status: 'PENDING' } }))).toContain('not a final outcome');
  });
});
