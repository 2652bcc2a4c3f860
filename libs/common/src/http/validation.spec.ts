import type { ValidationError } from '@nestjs/common';
import { onlyDeferredFailures } from './validation.js';

const failure = (property: string, constraints: Record<string, string>, contexts?: Record<string, unknown>, children: ValidationError[] = []): ValidationError => ({
  property,
  constraints,
  contexts,
  children,
});

describe('onlyDeferredFailures', () => {
  const deferred = failure('amount', { isOnMethodIncrement: 'amount must be a multiple of 10.00' }, { isOnMethodIncrement: { deferToDomain: true } });

  it('is true when every failure is marked deferToDomain, nested ones included', () => {
    expect(onlyDeferredFailures([deferred])).toBe(true);
    expect(onlyDeferredFailures([failure('payouts', {}, undefined, [failure('0', {}, undefined, [deferred])])])).toBe(true);
  });

  it('is false as soon as anything else failed too, or nothing did', () => {
    expect(onlyDeferredFailures([deferred, failure('phone', { matches: 'phone must be 27XXXXXXXXX' })])).toBe(false);
    expect(onlyDeferredFailures([failure('amount', { matches: 'two places', isOnMethodIncrement: 'x' }, { isOnMethodIncrement: { deferToDomain: true } })])).toBe(false);
    expect(onlyDeferredFailures([])).toBe(false);
  });
});
