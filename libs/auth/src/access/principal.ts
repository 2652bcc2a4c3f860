import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who is calling: always a vendor, through one of its API tokens (never a dashboard user). */
export interface VendorPrincipal {
  vendorId: string;
  tokenId: string;
  /** Abilities granted by the token AND currently enabled on the vendor. */
  abilities: readonly string[];
}

/** Injects the authenticated vendor into a controller method. */
export const CurrentVendor = createParamDecorator((_data: unknown, context: ExecutionContext): VendorPrincipal => {
  const principal = context.switchToHttp().getRequest<{ user?: VendorPrincipal }>().user;
  // The global guard guarantees a principal on every non-public route; reaching here without one is a wiring bug.
  if (!principal) throw new Error('CurrentVendor used on a route without an authenticated principal');
  return principal;
});
