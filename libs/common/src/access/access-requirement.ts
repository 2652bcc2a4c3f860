import { SetMetadata } from '@nestjs/common';

/**
 * What a route requires of its caller, read by each app's guard (#auth's AccessGuard, the
 * dashboard's SessionGuard). The public marker lives here, in a platform lib, because platform
 * controllers (health, metrics) declare it without depending on the auth domain; the
 * ability-based requirements are written by #auth's decorators.
 */
export const ACCESS_REQUIREMENT = 'gateway:access-requirement';

export type AccessRequirement =
  | { kind: 'public' }
  | { kind: 'abilities'; required: readonly string[] };

/** Opts a route out of authentication: health, metrics, the provider callback. */
export const Public = () => SetMetadata(ACCESS_REQUIREMENT, { kind: 'public' } satisfies AccessRequirement);
