import { userInfo } from 'node:os';
import { opsActor, type StaffActor } from '#staff';

let named: string | undefined;

/** main.ts passes `OPS_ACTOR`: who runs the CLI when the OS account says nothing (a shared jump host's). */
export function nameCliOperator(name: string | undefined): void {
  named = name?.trim() || undefined;
}

/** The actor of the CLI's staff audit records: `ops:<OPS_ACTOR or the OS user>`. */
export function cliActor(): StaffActor {
  return opsActor(named ?? userInfo().username);
}
