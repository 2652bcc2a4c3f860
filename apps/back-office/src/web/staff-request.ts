import { actorOf, type Decider, type StaffSession } from '#staff';
import { clientAddress, sessionOf, type SignedInRequest } from '#web';

/** An Express request after the staff guard: `signedIn` is set on every non-public page. */
export type StaffRequest = SignedInRequest<StaffSession>;

// The pages read the signed-in staff member through these (#web, shared with the vendor dashboard).
export { CurrentSession, sessionOf } from '#web';

/** The signed-in staff member as the one deciding, with the address the ingress saw. */
export function deciderOf(request: StaffRequest): Decider {
  const session = sessionOf(request);
  return { ...actorOf(session, clientAddress(request)), staffUserId: session.staffUserId, role: session.role };
}
