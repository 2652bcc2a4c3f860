import { Reflector } from '@nestjs/core';
import { UnauthenticatedError } from '#common';
import { AccessGuard } from './access.guard.js';

describe('AccessGuard.handleRequest', () => {
  const guard = new AccessGuard(new Reflector(), { defaultStrategy: 'bearer:test' });

  it('answers a missing or unknown token as unauthenticated', () => {
    expect(() => guard.handleRequest(null, false)).toThrow(UnauthenticatedError);
  });

  it('lets a failed token lookup (database down) through as itself, so it becomes a 503 and not a 401', () => {
    const outage = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    expect(() => guard.handleRequest(outage, false)).toThrow(outage);
  });

  it('returns the principal of a valid token', () => {
    const principal = { vendorId: 'v', tokenId: 't', abilities: [] };
    expect(guard.handleRequest(null, principal)).toBe(principal);
  });
});
