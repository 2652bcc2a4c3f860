import type { Request } from 'express';
import { NotFoundError, ValidationFailedError } from '#common';
import { submitNewPassword } from './password-forms.js';
import { randomSecret } from './secrets.js';

const PRE = 'dash_pre';

function attempt(form: { password?: unknown; confirm?: unknown; _pre?: unknown }, apply: (password: string) => Promise<unknown>, confirm = true) {
  const pre = randomSecret();
  const request = { headers: { cookie: `${PRE}=${pre}` } } as unknown as Request;
  const shown: { status: number; errors: Record<string, string[]> }[] = [];
  const applied = submitNewPassword(request, PRE, { _pre: pre, ...form }, { confirm, show: (status, errors) => shown.push({ status, errors }), apply });
  return { applied, shown };
}

/** An apply step that records the passwords it was given. */
function recorder() {
  const calls: string[] = [];
  return { calls, apply: async (password: string) => void calls.push(password) };
}

describe('submitNewPassword', () => {
  it('applies the password when the form came from this browser and both passwords agree', async () => {
    const { calls, apply } = recorder();
    const { applied, shown } = attempt({ password: 'correct horse battery staple', confirm: 'correct horse battery staple' }, apply);
    await expect(applied).resolves.toBe(true);
    expect(calls).toEqual(['correct horse battery staple']);
    expect(shown).toEqual([]);
  });

  it('shows the form again, without applying, when the pre-session value does not match (403) or the passwords differ (400)', async () => {
    const { calls, apply } = recorder();
    const expired = attempt({ password: 'a', confirm: 'a', _pre: randomSecret() }, apply);
    await expect(expired.applied).resolves.toBe(false);
    expect(expired.shown).toEqual([{ status: 403, errors: { _: ['The form expired. Try again.'] } }]);
    const differ = attempt({ password: 'one password here', confirm: 'another one here' }, apply);
    await expect(differ.applied).resolves.toBe(false);
    expect(differ.shown).toEqual([{ status: 400, errors: { password: ['The two passwords differ.'] } }]);
    expect(calls).toEqual([]);
  });

  it('does not ask for the confirmation when the form does not carry one', async () => {
    const { calls, apply } = recorder();
    await expect(attempt({ password: 'the current one' }, apply, false).applied).resolves.toBe(true);
    expect(calls).toEqual(['the current one']);
  });

  it("shows a VALIDATION_FAILED's field errors (400) and lets every other error through", async () => {
    const refused = attempt({ password: 'short', confirm: 'short' }, async () => {
      throw new ValidationFailedError({ password: ['Use at least 12 characters.'] });
    });
    await expect(refused.applied).resolves.toBe(false);
    expect(refused.shown).toEqual([{ status: 400, errors: { password: ['Use at least 12 characters.'] } }]);
    const gone = attempt({ password: 'x', confirm: 'x' }, async () => {
      throw new NotFoundError('invite');
    });
    await expect(gone.applied).rejects.toBeInstanceOf(NotFoundError);
  });
});
