import { Injectable } from '@nestjs/common';
import { ChangeNotifications, ExactCache } from '#database';
import { TokenService, type AuthenticatedToken, type LiveToken } from '../tokens/token.service.js';
import { hashTokenSecret, TOKEN_PATTERN } from '../tokens/token-secret.js';

/** Channel of the trigger on api_tokens and vendors (migration ChangeNotifications1763781400000). */
export const AUTH_TOKENS_CHANGED = 'auth_tokens_changed';

/** How often a cached token's last use is written: the same minute the uncached lookup keeps. */
const LAST_USE_INTERVAL_MS = 60_000;

/** `lastUseAt`: when this process last wrote (or found fresh) the token's last_used_at. */
type CachedToken = LiveToken & { lastUseAt: number };

/**
 * The gateways' per-request token lookup, cached in process. Exact: any revocation, change of a
 * token's abilities or expiry, or of its vendor's enabled abilities empties the cache when it
 * commits (ExactCache), and expiry is checked on every use. Only live tokens are cached, keyed by
 * the secret's hash (never the secret), so guessed tokens cannot fill it.
 */
@Injectable()
export class TokenAuthenticationCache {
  private readonly cache: ExactCache<CachedToken>;

  constructor(
    private readonly tokens: TokenService,
    notifications: ChangeNotifications,
  ) {
    this.cache = new ExactCache(notifications, { channels: [AUTH_TOKENS_CHANGED], maxEntries: 10_000 });
  }

  async authenticate(secret: string): Promise<AuthenticatedToken | null> {
    if (!TOKEN_PATTERN.test(secret)) return null;
    const hash = hashTokenSecret(secret);
    const cached = await this.cache.get(hash, async () => {
      const live = await this.tokens.lookup(hash);
      return live && { ...live, lastUseAt: Date.now() };
    });
    if (!cached) return null;
    const now = Date.now();
    if (cached.expiresAt <= now) {
      this.cache.delete(hash);
      return null;
    }
    if (now - cached.lastUseAt >= LAST_USE_INTERVAL_MS) {
      cached.lastUseAt = now;
      await this.tokens.touchLastUsed(cached.token.tokenId);
    }
    return cached.token;
  }

  /** For tests and metrics. */
  get stats() {
    return this.cache.stats;
  }
}
