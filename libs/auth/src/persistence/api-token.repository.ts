import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { readShape } from '#database';
import { ApiTokenEntity } from '../tokens/api-token.entity.js';

/** A presented token's hash resolved to its vendor, with the vendor's enabled abilities. */
export interface TokenAuthentication {
  tokenId: string;
  vendorId: string;
  abilities: string[];
  vendorAbilities: string[];
  expiresAt: Date;
  /** last_used_at is over a minute old (or unset): worth writing again. */
  lastUseStale: boolean;
}

// pg returns every field as the record wants it, so rows are used as they come (no per-request mapping).
const AUTHENTICATION = readShape<TokenAuthentication>({
  tokenId: 'token.id', vendorId: 'token.vendor_id', abilities: 'token.abilities', vendorAbilities: 'vendor.enabled_abilities', expiresAt: 'token.expires_at',
  lastUseStale: "(token.last_used_at IS NULL OR token.last_used_at < now() - interval '60 seconds')",
});

export type NewApiToken = Pick<ApiTokenEntity, 'vendorId' | 'tokenHash' | 'tokenPrefix' | 'abilities' | 'expiresAt' | 'revokedAt' | 'name' | 'createdByUserId'>;

/** Which token: by id, and when a vendor id is given, only that vendor's. */
export interface TokenScope {
  id: string;
  vendorId?: string;
}

/** The api_tokens table; its entity is the table's definition. */
@Injectable()
export class ApiTokenRepository {
  constructor(@InjectRepository(ApiTokenEntity) private readonly tokens: Repository<ApiTokenEntity>) {}

  insert(token: NewApiToken): Promise<ApiTokenEntity> {
    return this.tokens.save(this.tokens.create(token));
  }

  /** Sets revoked_at unless already revoked: how many tokens it revoked (0 or 1). */
  async revoke(scope: TokenScope): Promise<number> {
    const result = await this.tokens.update({ ...scope, revokedAt: IsNull() }, { revokedAt: new Date() });
    return result.affected ?? 0;
  }

  async find(scope: TokenScope): Promise<ApiTokenEntity | null> {
    return this.tokens.findOneBy(scope);
  }

  /** The vendor's tokens, newest first. */
  listOf(vendorId: string): Promise<ApiTokenEntity[]> {
    return this.tokens.find({ where: { vendorId }, order: { createdAt: 'DESC', id: 'ASC' } });
  }

  /**
   * The live token with this hash, through the hash's unique index. Plain SQL: this runs on every
   * request, and building it through the query builder cost more CPU than the query.
   */
  async authenticate(tokenHash: string): Promise<TokenAuthentication | undefined> {
    const [row] = (await this.tokens.manager.query(
      `SELECT ${AUTHENTICATION.columns}
         FROM api_tokens token INNER JOIN vendors vendor ON vendor.id = token.vendor_id
        WHERE token.token_hash = $1 AND token.revoked_at IS NULL AND token.expires_at > now()`,
      [tokenHash],
    )) as TokenAuthentication[];
    return row;
  }

  /** Records the use, unless one was recorded in the last minute (a racing request's write wins). */
  async touchLastUsed(tokenId: string): Promise<void> {
    await this.tokens.manager.query(`UPDATE api_tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`, [
      tokenId,
    ]);
  }
}
