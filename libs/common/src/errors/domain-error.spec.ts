import { DomainError, RateLimitedError } from './domain-error.js';
import { COMMON_ERRORS, type ErrorCode } from './error-catalogue.js';

describe('DomainError codes', () => {
  it('carries a code some catalogue declares', () => {
    const error = new DomainError('NOT_FOUND');
    expect(COMMON_ERRORS[error.code as keyof typeof COMMON_ERRORS]).toBeDefined();
  });

  it('does not compile with a code no catalogue declares', () => {
    // The check is the compiler's (npx tsc --noEmit fails if this line compiles); the run only
    // shows that nothing at run time stands in for it.
    // @ts-expect-error NO_SUCH_CODE is in no catalogue
    expect(new DomainError('NO_SUCH_CODE').code).toBe('NO_SUCH_CODE');
    // @ts-expect-error a rate limit answers with a catalogued code too
    expect(new RateLimitedError('SLOW_DOWN', 1).code).toBe('SLOW_DOWN');
    const code: ErrorCode = 'VALIDATION_FAILED';
    expect(code).toBe('VALIDATION_FAILED');
  });
});
