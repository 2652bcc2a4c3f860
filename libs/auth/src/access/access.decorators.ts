import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ACCESS_REQUIREMENT, type AccessRequirement } from '#common';
import type { PayoutScope, PurchaseAbility, WebhookAbility } from './abilities.js';

// The public marker and the metadata key live in #common (platform controllers use them);
// re-exported so every existing `from '#auth'` import keeps working.
export { ACCESS_REQUIREMENT, Public, type AccessRequirement } from '#common';

/**
 * Declares the purchase abilities a route needs. It also writes the OpenAPI security entry,
 * so the documentation cannot drift from what the guard enforces.
 */
export const RequireAbilities = (...abilities: Array<PurchaseAbility | WebhookAbility>) => requirement(abilities);

/** Payout-gateway twin of RequireAbilities: the contract calls them scopes. */
export const RequireScopes = (...scopes: Array<PayoutScope | WebhookAbility>) => requirement(scopes);

function requirement(required: readonly string[]) {
  return applyDecorators(
    SetMetadata(ACCESS_REQUIREMENT, { kind: 'abilities', required } satisfies AccessRequirement),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-abilities', required),
    ApiUnauthorizedResponse({ description: 'Missing, malformed, expired or revoked token (UNAUTHENTICATED)' }),
    ApiForbiddenResponse({ description: `Token or vendor lacks: ${required.join(', ')} (FORBIDDEN)` }),
  );
}
