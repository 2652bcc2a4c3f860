import { Injectable } from '@nestjs/common';
import { NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { isAbility } from '../access/abilities.js';
import type { VendorPrincipal } from '../access/principal.js';
import { ApiTokenRepository } from '../persistence/api-token.repository.js';
import { VendorRepository } from '../persistence/vendor.repository.js';
import { generateTokenSecret, hashTokenSecret, tokenModeOf } from './token-secret.js';

export interface IssuedToken {
  id: string;
  /** The secret. Returned once, at creation; only its hash is stored. */
  token: string;
  abilities: string[];
  expires_at: string;
}

/** Who asked for a token and what they called it; the operator CLI passes neither. */
export interface TokenOrigin {
  name?: string;
  createdByUserId?: string;
}

/** A token as its vendor may see it: never the secret or its hash. */
export interface TokenSummary {
  id: string;
  name: string | null;
  prefix: string;
  abilities: string[];
  createdByUserId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  revokedAt: Date | null;
  status: 'active' | 'expired' | 'revoked';
}

export const TOKEN_NAME_MAX_LENGTH = 100;

/** A token's abilities count only while they are also enabled on its vendor, checked at every use. */
export interface AuthenticatedToken extends VendorPrincipal {
  tokenAbilities: readonly string[];
  vendorAbilities: readonly string[];
}

/** A token found live, with its expiry (epoch ms). */
export interface LiveToken {
  token: AuthenticatedToken;
  expiresAt: number;
}

@Injectable()
export class TokenService {
  constructor(
    private readonly tokens: ApiTokenRepository,
    private readonly vendors: VendorRepository,
    private readonly config: GatewayEnv,
  ) {}

  async issue(vendorId: string, abilities: string[], lifetimeSeconds: number, origin: TokenOrigin = {}): Promise<IssuedToken> {
    const unknown = abilities.filter((ability) => !isAbility(ability));
    if (unknown.length > 0) throw new ValidationFailedError({ abilities: [`unknown abilities: ${unknown.join(', ')}`] });
    if (abilities.length === 0) throw new ValidationFailedError({ abilities: ['at least one ability is required'] });
    const name = origin.name?.trim();
    if (name !== undefined && (name.length === 0 || name.length > TOKEN_NAME_MAX_LENGTH)) {
      throw new ValidationFailedError({ name: [`name must be 1 to ${TOKEN_NAME_MAX_LENGTH} characters`] });
    }
    if (!(await this.vendors.exists(vendorId))) throw new NotFoundError('vendor');
    // APP_ENV production issues gwt_live_ tokens, every other environment gwt_test_ ones.
    const secret = generateTokenSecret(tokenModeOf(this.config.APP_ENV));
    const saved = await this.tokens.insert({
      vendorId,
      tokenHash: hashTokenSecret(secret),
      // Enough to tell tokens apart in listings (mode + 5 random characters), never enough to guess one.
      tokenPrefix: secret.slice(0, 14),
      abilities: [...new Set(abilities)],
      expiresAt: new Date(Date.now() + lifetimeSeconds * 1000),
      revokedAt: null,
      name: name ?? null,
      createdByUserId: origin.createdByUserId ?? null,
    });
    return { id: saved.id, token: secret, abilities: saved.abilities, expires_at: saved.expiresAt.toISOString() };
  }

  /** Revokes at once; with a vendorId (the dashboard), another vendor's token is a 404 and stays untouched. */
  async revoke(tokenId: string, vendorId?: string): Promise<{ id: string; revoked_at: string }> {
    if (!UUID_PATTERN.test(tokenId)) throw new NotFoundError('token');
    const scope = vendorId === undefined ? { id: tokenId } : { id: tokenId, vendorId };
    const revoked = await this.tokens.revoke(scope);
    const token = await this.tokens.find(scope);
    if (!token) throw new NotFoundError('token');
    if (revoked === 0 && !token.revokedAt) throw new NotFoundError('token');
    return { id: token.id, revoked_at: token.revokedAt!.toISOString() };
  }

  /** The vendor's tokens, newest first. */
  async list(vendorId: string): Promise<TokenSummary[]> {
    const now = Date.now();
    const rows = await this.tokens.listOf(vendorId);
    return rows.map((token) => ({
      id: token.id,
      name: token.name,
      prefix: token.tokenPrefix,
      abilities: token.abilities,
      createdByUserId: token.createdByUserId,
      createdAt: token.createdAt,
      lastUsedAt: token.lastUsedAt,
      expiresAt: token.expiresAt,
      revokedAt: token.revokedAt,
      status: token.revokedAt ? 'revoked' : token.expiresAt.getTime() <= now ? 'expired' : 'active',
    }));
  }

  /**
   * The live token with this hash and when it expires (the gateways' token cache keeps both), its
   * last use recorded when that is over a minute old. By hash through a unique index, so no secret
   * is ever compared character by character in application code.
   */
  async lookup(tokenHash: string): Promise<LiveToken | undefined> {
    const row = await this.tokens.authenticate(tokenHash);
    if (!row) return undefined;
    // When it was last used, for the dashboard: written at most about once a minute per token, so
    // almost every request stays a single read (a write in the same statement cost ~40 % more).
    if (row.lastUseStale) await this.tokens.touchLastUsed(row.tokenId);
    const vendorAbilities = new Set(row.vendorAbilities);
    return {
      token: {
        vendorId: row.vendorId,
        tokenId: row.tokenId,
        tokenAbilities: row.abilities,
        vendorAbilities: row.vendorAbilities,
        abilities: row.abilities.filter((ability) => vendorAbilities.has(ability)),
      },
      expiresAt: row.expiresAt.getTime(),
    };
  }

  /** Records a use of the token unless one was recorded in the last minute. */
  async touchLastUsed(tokenId: string): Promise<void> {
    await this.tokens.touchLastUsed(tokenId);
  }
}
