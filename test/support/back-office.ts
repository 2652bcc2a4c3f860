import type { INestApplicationContext } from '@nestjs/common';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import type supertest from 'supertest';
import { opsActor, StaffAccounts, type StaffRole } from '#staff';
import { cookieValue } from './dashboard.js';

export interface StaffPerson {
  id: string;
  email: string;
  password: string;
  role: StaffRole;
  totpSecret: string;
  /** The last TOTP step used: each code works once, so every sign-in takes the next step. */
  lastStep: number;
}

const STEP_MS = 30_000;
let people = 0;

/** The code of the next unused step the server still accepts (±1 step), waiting for the clock when the person used them all. */
export async function nextCode(person: StaffPerson): Promise<string> {
  for (;;) {
    const now = Date.now();
    const current = Math.floor(now / STEP_MS);
    // The previous step only while it has 10 s or more to live: used near the boundary, it expired
    // before the server checked it (a sign-in refused in setup on a busy machine).
    const earliest = now - current * STEP_MS < STEP_MS - 10_000 ? current - 1 : current;
    const step = Math.max(person.lastStep + 1, earliest);
    if (step <= current + 1) {
      person.lastStep = step;
      return generate({ secret: person.totpSecret, epoch: step * 30 });
    }
    await new Promise((resolve) => setTimeout(resolve, (current + 1) * STEP_MS - Date.now() + 50));
  }
}

/** A staff member made the way a real one is: `ops staff:create`'s service call, then the setup link with a password and a first code. */
export async function createStaffUser(app: INestApplicationContext, role: StaffRole): Promise<StaffPerson> {
  const accounts = app.get(StaffAccounts);
  const email = `${role}-${process.pid}-${Date.now() % 1e8}-${++people}@staff.example`;
  const password = `staff horse battery ${people} staple`;
  const link = await accounts.create(email, role, opsActor('test-setup'));
  const { secret, enrolment } = accounts.newEnrolment(link.user.id);
  const person: StaffPerson = { id: link.user.id, email, password, role, totpSecret: secret, lastStep: 0 };
  await accounts.completeSetup(link.secret, { password, enrolment, code: await nextCode(person) }, null);
  return person;
}

export const STAFF_SESSION_COOKIE = '__Host-staff_session';
export const STAFF_PRE_COOKIE = '__Host-staff_pre';

export async function staffSignInRequest(http: () => ReturnType<typeof supertest>, email: string, password: string, totp: string) {
  const page = await http().get('/sign-in');
  const pre = cookieValue(page.headers['set-cookie'], STAFF_PRE_COOKIE)!;
  const field = /name="_pre" value="([^"]+)"/.exec(page.text)![1];
  return http().post('/sign-in').set('Cookie', `${STAFF_PRE_COOKIE}=${pre}`).type('form').send({ email, password, totp, _pre: field });
}

export interface StaffSignedIn {
  cookie: string;
  csrf: string;
}

export async function staffSignIn(http: () => ReturnType<typeof supertest>, person: StaffPerson): Promise<StaffSignedIn> {
  const response = await staffSignInRequest(http, person.email, person.password, await nextCode(person));
  if (response.status !== 303) throw new Error(`staff sign-in failed with ${response.status}: ${response.text.slice(0, 500)}`);
  const cookie = `${STAFF_SESSION_COOKIE}=${cookieValue(response.headers['set-cookie'], STAFF_SESSION_COOKIE)!}`;
  // Every signed-in page carries the session's CSRF token in its sign-out form.
  const page = await http().get('/audit').set('Cookie', cookie);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  return { cookie, csrf };
}

/** Signs a staff member in through the real sign-in form in Chromium, landing on `path`. */
export async function browserSignIn(page: Page, base: string, person: StaffPerson, path: string): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.fill('#email', person.email);
  await page.fill('#password', person.password);
  await page.fill('#totp', await nextCode(person));
  await Promise.all([page.waitForURL(`${base}${path}`), page.click('button:has-text("Sign in")')]);
}
