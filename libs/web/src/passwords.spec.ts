import { hashPassword, passwordProblems, verifyPassword } from './passwords.js';

describe('passwords', () => {
  it('accepts a long passphrase and refuses short, common, repeated or email-based ones', () => {
    expect(passwordProblems('correct horse battery staple', 'thandi@vendor.example')).toEqual([]);
    expect(passwordProblems('short', 'thandi@vendor.example')).toEqual(['Use at least 12 characters.']);
    expect(passwordProblems('Password1234', 'thandi@vendor.example')).toEqual(['This password is too easy to guess.']);
    expect(passwordProblems('aaaaaaaaaaaaaaaa', 'thandi@vendor.example')).toEqual(['This password is too easy to guess.']);
    expect(passwordProblems('my name is Thandi ok', 'thandi@vendor.example')).toEqual(['Do not use your email address in the password.']);
    expect(passwordProblems('x'.repeat(257) + 'y', 'a@b.example')).toContain('Use at most 256 characters.');
  });

  it('hashes with argon2id and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$/);
    await expect(verifyPassword(stored, 'correct horse battery staple')).resolves.toBe(true);
    await expect(verifyPassword(stored, 'correct horse battery stable')).resolves.toBe(false);
    await expect(verifyPassword('not a hash', 'anything')).resolves.toBe(false);
  });
});
