import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented callback path token with the configured ones in constant time. Both
 * sides are hashed first so the buffers always have equal length (timingSafeEqual requires it)
 * and the comparison time does not depend on the presented token's length either.
 */
export function callbackTokenMatches(presented: string | undefined, accepted: ReadonlyArray<string | undefined>): boolean {
  const presentedDigest = digest(presented ?? '');
  let matched = false;
  for (const candidate of accepted) {
    if (!candidate) continue;
    // Every configured token is compared, so timing does not reveal which one matched.
    matched = timingSafeEqual(presentedDigest, digest(candidate)) || matched;
  }
  return matched && typeof presented === 'string' && /^[0-9a-f]{64}$/.test(presented);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
