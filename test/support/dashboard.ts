import type { INestApplicationContext } from '@nestjs/common';
import type supertest from 'supertest';
import { DashboardAccounts, type DashboardRole } from '#dashboard';

export interface DashboardPerson {
  id: string;
  email: string;
  password: string;
  role: DashboardRole;
}

let people = 0;

/** A dashboard user made the way a real one is: a one-time invite, accepted with a password. */
export async function createDashboardUser(app: INestApplicationContext, vendorId: string, role: DashboardRole = 'owner'): Promise<DashboardPerson> {
  const accounts = app.get(DashboardAccounts);
  const email = `${role}-${process.pid}-${Date.now() % 1e8}-${++people}@vendor.example`;
  const password = `correct horse battery ${people} staple`;
  const invite = await accounts.invite(vendorId, email, role, { userId: null, label: 'test' });
  const user = await accounts.acceptInvite(invite.secret, password, null);
  return { id: user.id, email, password, role };
}

export const SESSION_COOKIE = '__Host-dash_session';
export const PRE_COOKIE = '__Host-dash_pre';

export function cookieValue(setCookie: string[] | string | undefined, name: string): string | undefined {
  for (const line of ([] as string[]).concat(setCookie ?? [])) {
    const match = new RegExp(`^${name.replace(/[$]/g, '\\$&')}=([^;]*)`).exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/** GET /sign-in for the pre-session cookie and field, then POST the credentials. */
export async function signInRequest(http: () => ReturnType<typeof supertest>, email: string, password: string, extra: Record<string, string> = {}) {
  const page = await http().get('/sign-in');
  const pre = cookieValue(page.headers['set-cookie'], PRE_COOKIE)!;
  const field = /name="_pre" value="([^"]+)"/.exec(page.text)![1];
  return http()
    .post('/sign-in')
    .set('Cookie', `${PRE_COOKIE}=${pre}`)
    .type('form')
    .send({ email, password, _pre: field, ...extra });
}

export interface SignedIn {
  cookie: string;
  csrf: string;
}

export async function signIn(http: () => ReturnType<typeof supertest>, person: Pick<DashboardPerson, 'email' | 'password'>): Promise<SignedIn> {
  const response = await signInRequest(http, person.email, person.password);
  if (response.status !== 303) throw new Error(`sign-in failed with ${response.status}: ${response.text.slice(0, 500)}`);
  const secret = cookieValue(response.headers['set-cookie'], SESSION_COOKIE)!;
  const cookie = `${SESSION_COOKIE}=${secret}`;
  const page = await http().get('/purchases').set('Cookie', cookie);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  return { cookie, csrf };
}

/**
 * The page a form's POST redirected to, with the sealed one-time notice the POST set
 * (post/redirect/get: a new token's secret, an invite link).
 */
export async function followRedirect(http: () => ReturnType<typeof supertest>, session: SignedIn, posted: { status: number; headers: Record<string, unknown> }) {
  if (posted.status !== 303) throw new Error(`expected a 303 redirect, got ${posted.status}`);
  const cookies = ([] as string[]).concat((posted.headers['set-cookie'] as string[] | undefined) ?? []).map((line) => line.split(';')[0]);
  return http().get(String(posted.headers.location)).set('Cookie', [session.cookie, ...cookies].join('; '));
}
