import { SessionCookies } from '#web';

/** `__Host-staff_session` / `__Host-staff_pre`: a vendor dashboard cookie (`dash_…`) means nothing here. */
export class StaffCookies extends SessionCookies {
  constructor(config: { APP_ENV: string }) {
    super(config, 'staff');
  }
}
