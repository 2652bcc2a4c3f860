import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { actorOf, type Decider, type StaffSession } from '#staff';
import { clientAddress, SignInRequired } from '#web';

/** An Express request after the staff guard: `staff` is set on every non-public page. */
export interface StaffRequest extends Request {
  staff?: StaffSession;
}

/** The signed-in staff member of a guarded route. */
export function sessionOf(request: StaffRequest): StaffSession {
  if (!request.staff) throw new SignInRequired();
  return request.staff;
}

/** The signed-in staff member as a route handler's parameter. */
export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext) => sessionOf(context.switchToHttp().getRequest<StaffRequest>()));

/** The signed-in staff member as the one deciding, with the address the ingress saw. */
export function deciderOf(request: StaffRequest): Decider {
  const session = sessionOf(request);
  return { ...actorOf(session, clientAddress(request)), staffUserId: session.staffUserId, role: session.role };
}
