import type { DashboardSession } from '#dashboard';
import type { SignedInRequest } from '#web';

/** An Express request after the session guard: `signedIn` is set on every non-public page. */
export type DashboardRequest = SignedInRequest<DashboardSession>;
