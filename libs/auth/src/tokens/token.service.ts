import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { isAbility } from '../access/abilities.js';
import type { VendorPrincipal } from '../access/principal.js';
import { VendorEntity } from '../vendors/vendor.entity.js';
import { ApiTokenEntity } from './api-token.entity.js';
import { generateTokenSecret, hashTokenSecret, TOKEN_PATTERN, tokenModeOf } from './token-secret.js';

export interface IssuedToken {
  id: string;
  /** The secret. Returned once, at creation; only its hash is stored. */
  token: string;
  abilities: string[];
  expires_at: string;
}

/** A token's abilities count only while they are also enabled on its vendor, checked at every use. */
export interface AuthenticatedToken extends VendorPrincipal {
  tokenAbilities: readonly string[];
  vendorAbilities: readonly string[];
}

@Injectable()
export class TokenService {
  constructor(
    @InjectRepository(ApiTokenEntity) private readonly tokens: Repository<ApiTokenEntity>,
    @InjectRepository(VendorEntity) private readonly vendors: Repository<VendorEntity>,
    private readonly config: GatewayEnv,
  ) {}

  async issue(vendorId: string, abilities: string[], lifetimeSeconds: number): Promise<IssuedToken> {
    const unknown = abilities.filter((ability) => !isAbility(ability));
    if (unknown.length > 0) throw new ValidationFailedError({ abilities: [`unknown abilities: ${unknown.join(', ')}`] });
    if (abilities.length === 0) throw new ValidationFailedError({ abilities: ['at least one ability is required'] });
    if (!(await this.vendors.existsBy({ id: vendorId }))) throw new NotFoundError('vendor');
    // APP_ENV production issues gwt_live_ tokens, every other environment gwt_test_ ones.
    const secret = generateTokenSecret(tokenModeOf(this.config.APP_ENV));
    const saved = await this.tokens.save(
      this.tokens.create({
        vendorId,
        tokenHash: hashTokenSecret(secret),
        // Enough to tell tokens apart in listings (mode + 5 random characters), never enough to guess one.
        tokenPrefix: secret.slice(0, 14),
        abilities: [...new Set(abilities)],
        expiresAt: new Date(Date.now() + lifetimeSeconds * 1000),
        revokedAt: null,
      }),
    );
    return { id: saved.id, token: secret, abilities: saved.abilities, expires_at: saved.expiresAt.toISOString() };
  }

  async revoke(tokenId: string): Promise<{ id: string; revoked_at: string }> {
    const result = await this.tokens.update({ id: tokenId, revokedAt: IsNull() }, { revokedAt: new Date() });
    const token = await this.tokens.findOneBy({ id: tokenId });
    if (!token) throw new NotFoundError('token');
    if (result.affected === 0 && !token.revokedAt) throw new NotFoundError('token');
    return { id: token.id, revoked_at: token.revokedAt!.toISOString() };
  }

  /**
   * Resolves a presented secret to its vendor. The lookup is by hash through a unique index,
   * so no secret is ever compared character by character in application code.
   */
  async authenticate(secret: string): Promise<AuthenticatedToken | null> {
    if (!TOKEN_PATTERN.test(secret)) return null;
    // Plain SQL: this runs on every request, and building it through the query builder cost more CPU than the query.
    const [row] = (await this.tokens.manager.query(
      `SELECT token.id AS token_id, token.vendor_id AS vendor_id, token.abilities AS abilities, vendor.enabled_abilities AS vendor_abilities
         FROM api_tokens token INNER JOIN vendors vendor ON vendor.id = token.vendor_id
        WHERE token.token_hash = $1 AND token.revoked_at IS NULL AND token.expires_at > now()`,
      [hashTokenSecret(secret)],
    )) as { token_id: string; vendor_id: string; abilities: string[]; vendor_abilities: string[] }[];
    if (!row) return null;
    const vendorAbilities = new Set(row.vendor_abilities);
    return {
      vendorId: row.vendor_id,
      tokenId: row.token_id,
      tokenAbilities: row.abilities,
      vendorAbilities: row.vendor_abilities,
      abilities: row.abilities.filter((ability) => vendorAbilities.has(ability)),
    };
  }
}
