import { VendorService } from '#auth';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../../scripts/mail-catcher/mail-catcher.mjs';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, staffSignIn, type StaffPerson, type StaffSignedIn } from '../support/back-office.js';
import { eventually } from '../support/purchase-stack.js';

type Who = 'admin' | 'secondAdmin' | 'thirdAdmin' | 'operator' | 'approver' | 'secondApprover' | 'colleague';

/**
 * The back-office's staff mail, through a real SMTP server (the local mail catcher the stack
 * runs), read as test/dashboard/dashboard-mail-browser.e2e-spec.ts reads the dashboard's: a staff
 * member is told when their authenticator is reset (the mail never carries the setup link), when
 * their account is disabled and when it is enabled again; a proposal is mailed to those who may
 * decide it (the other admins for staff changes, the approvers for money), never to its proposer
 * nor to roles that cannot decide it.
 */
describe('back-office staff mail', () => {
  let catcher: MailCatcher;
  let backOffice: RunningApp;
  const people = {} as Record<Who, StaffPerson>;
  const session = {} as Partial<Record<Who, StaffSignedIn>>;

  const form = (who: Who, path: string, fields: Record<string, string> = {}) =>
    backOffice.http().post(path).set('Cookie', session[who]!.cookie).type('form').send({ _csrf: session[who]!.csrf, ...fields });

  /** The newest mail to `to` whose subject matches, after mail number `after`, waiting for it to arrive. */
  const mailTo = (to: string, subject: RegExp, after: number): Promise<CaughtMail> =>
    eventually(
      async () => catcher.messages().filter((mail) => mail.id > after && mail.envelopeTo.includes(to) && subject.test(mail.subject)).at(-1),
      (mail) => mail !== undefined,
      15_000,
      100,
    ) as Promise<CaughtMail>;
  const lastMailId = () => catcher.messages().at(-1)?.id ?? 0;
  /** Who of this suite's people got a mail with that subject (other suites' accounts may share the database). */
  const recipientsOf = (subject: RegExp, after: number) => {
    const ours = new Set(Object.values(people).map((person) => person.email));
    return catcher.messages().filter((mail) => mail.id > after && subject.test(mail.subject)).flatMap((mail) => mail.envelopeTo).filter((to) => ours.has(to)).sort();
  };

  beforeAll(async () => {
    catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, quiet: true });
    backOffice = await startBackOffice({ config: { MAIL_SMTP_URL: catcher.smtpUrl, MAIL_FROM: 'Back-office <no-reply@staff.example>', STAFF_FOUR_EYES_ABOVE_CENTS: '10000' } });
    const roles: Record<Who, 'admin' | 'operator' | 'approver'> = { admin: 'admin', secondAdmin: 'admin', thirdAdmin: 'admin', operator: 'operator', approver: 'approver', secondApprover: 'approver', colleague: 'operator' };
    for (const [who, role] of Object.entries(roles) as [Who, 'admin' | 'operator' | 'approver'][]) people[who] = await createStaffUser(backOffice.app, role);
    for (const who of ['admin', 'secondAdmin', 'operator'] as const) session[who] = await staffSignIn(backOffice.http, people[who]);
  }, 120_000);

  afterAll(async () => {
    await backOffice?.close();
    await catcher?.close();
  });

  it('tells a colleague their authenticator was reset, without the setup link', async () => {
    const before = lastMailId();
    const reset = await form('admin', `/staff/${people.colleague.id}/reset-totp`, { confirmed: 'yes', reason: 'Lost phone, confirmed on a video call' });
    expect(reset.status).toBe(200);
    const token = /\/setup\?token=([A-Za-z0-9_-]+)/.exec(reset.text)![1];
    const mail = await mailTo(people.colleague.email, /^Your back-office authenticator was reset$/, before);
    expect(mail.from).toContain('no-reply@staff.example');
    expect(mail.text).toContain(`${people.admin.email} reset the authenticator`);
    expect(mail.text).toContain('Reason given: Lost phone, confirmed on a video call');
    expect(mail.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} SAST/);
    expect(mail.text).not.toContain(token);
    expect(mail.text).not.toContain('/setup');
    expect(recipientsOf(/authenticator was reset/, before)).toEqual([people.colleague.email]);
  });

  it('tells a colleague their account was disabled; enabling it again is mailed to the other admins, then to them', async () => {
    let before = lastMailId();
    expect((await form('admin', `/staff/${people.colleague.id}/disable`, { confirmed: 'yes', reason: 'Left the team today' })).status).toBe(303);
    const disabled = await mailTo(people.colleague.email, /^Your back-office account was disabled$/, before);
    expect(disabled.text).toContain(`${people.admin.email} disabled your back-office account ${people.colleague.email}`);
    expect(disabled.text).toContain('Reason given: Left the team today');

    before = lastMailId();
    const proposed = await form('admin', `/staff/${people.colleague.id}/enable`, { reason: 'Back on the team, confirmed by the ops lead' });
    expect(proposed.status).toBe(303);
    const proposalId = proposed.headers.location.split('/').pop()!;
    // Every other active admin is told; the proposer and those who cannot decide staff changes are not.
    const waiting = await mailTo(people.thirdAdmin.email, /^Waiting for a second person: /, before);
    await mailTo(people.secondAdmin.email, /^Waiting for a second person: /, before);
    expect(waiting.subject).toContain(people.colleague.email);
    expect(waiting.text).toContain(`${people.admin.email} proposed at`);
    expect(waiting.text).toContain('Why: Back on the team, confirmed by the ops lead');
    expect(waiting.text).toContain(`/proposals/${proposalId}`);
    expect(recipientsOf(/^Waiting for a second person: /, before)).toEqual([people.secondAdmin.email, people.thirdAdmin.email].sort());

    before = lastMailId();
    expect((await form('secondAdmin', `/proposals/${proposalId}/approve`)).status).toBe(200);
    const enabled = await mailTo(people.colleague.email, /^Your back-office account is enabled again$/, before);
    expect(enabled.text).toContain(`proposed by ${people.admin.email}, approved by ${people.secondAdmin.email}`);
  });

  it('mails a money proposal to the approvers only', async () => {
    const vendor = await backOffice.app.get(VendorService).create(`Mail funding vendor ${Date.now()}`);
    const before = lastMailId();
    const proposed = await form('operator', `/vendors/${vendor.id}/fund`, { amount: '500.00', reason: 'Deposit EFT-4471 on the bank statement' });
    expect(proposed.status).toBe(303);
    expect(proposed.headers.location).toMatch(/^\/proposals\//);
    const waiting = await mailTo(people.approver.email, /^Waiting for a second person: /, before);
    await mailTo(people.secondApprover.email, /^Waiting for a second person: /, before);
    expect(waiting.text).toContain(`${people.operator.email} proposed at`);
    expect(waiting.text).toContain('Why: Deposit EFT-4471 on the bank statement');
    expect(recipientsOf(/^Waiting for a second person: /, before)).toEqual([people.approver.email, people.secondApprover.email].sort());
  });
});
