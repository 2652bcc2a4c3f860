import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { PayoutScope, PurchaseAbility, WebhookAbility } from './abilities.js';

export const ACCESS_REQUIREMENT = 'gateway:access-requirement';

export type AccessRequirement =
  | { kind: 'public' }
  | { kind: 'abilities'; required: readonly string[] };

/**
 * Declares the purchase abilities a route needs. It also writes the OpenAPI security entry,
 * so the documentation cannot drift from what the guard enforces.
 */
export const RequireAbilities = (...abilities: Array<PurchaseAbility | WebhookAbility>) => requirement(abilities);

/** Payout-gateway twin of RequireAbilities: the contract calls them scopes. */
export const RequireScopes = (...scopes: Array<PayoutScope | WebhookAbility>) => requirement(scopes);

/** Opts a route out of authentication: health, metrics, the provider callback. */
export const Public = () => SetMetadata(ACCESS_REQUIREMENT, { kind: 'public' } satisfies AccessRequirement);

function requirement(required: readonly string[]) {
  return applyDecorators(
    SetMetadata(ACCESS_REQUIREMENT, { kind: 'abilities', required } satisfies AccessRequirement),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-abilities', required),
    ApiUnauthorizedResponse({ description: 'Missing, malformed, expired or revoked token (UNAUTHENTICATED)' }),
    ApiForbiddenResponse({ description: `Token or vendor lacks: ${required.join(', ')} (FORBIDDEN)` }),
  );
}
