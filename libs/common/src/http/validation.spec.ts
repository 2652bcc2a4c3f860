import type { ValidationError } from '@nestjs/common';
import { codeOfFailures, onlyDeferredFailures } from './validation.js';

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

describe('codeOfFailures', () => {
  const increment = failure('amount', { isOnMethodIncrement: 'amount must be a multiple of 10.00' }, { isOnMethodIncrement: { deferToDomain: true, code: 'AMOUNT_INCREMENT_INVALID' } });

  it('is the code a failed rule names, nested ones included, whatever else failed', () => {
    expect(codeOfFailures([failure('phone', { matches: 'phone must be 27XXXXXXXXX' }), increment])).toBe('AMOUNT_INCREMENT_INVALID');
    expect(codeOfFailures([failure('payouts', {}, undefined, [failure('3', {}, undefined, [increment])])])).toBe('AMOUNT_INCREMENT_INVALID');
  });

  it('is undefined when no failed rule names one', () => {
    expect(codeOfFailures([failure('phone', { matches: 'phone must be 27XXXXXXXXX' })])).toBeUndefined();
    expect(codeOfFailures([])).toBeUndefined();
  });
});
