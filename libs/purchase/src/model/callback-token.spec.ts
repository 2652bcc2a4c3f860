import { callbackTokenMatches } from './callback-token.js';

const current = 'a'.repeat(64);
const previous = 'b'.repeat(64);

describe('callbackTokenMatches', () => {
  it('accepts the current and the previous token', () => {
    expect(callbackTokenMatches(current, [current, previous])).toBe(true);
    expect(callbackTokenMatches(previous, [current, previous])).toBe(true);
  });

  it.each([
    ['a different token', 'c'.repeat(64)],
    ['a prefix', 'a'.repeat(63)],
    ['a longer value', 'a'.repeat(65)],
    ['upper case', 'A'.repeat(64)],
    ['empty', ''],
    ['missing', undefined],
  ])('refuses %s', (_label, presented) => {
    expect(callbackTokenMatches(presented, [current, previous])).toBe(false);
  });

  it('refuses everything when no token is configured', () => {
    expect(callbackTokenMatches('', [undefined, undefined])).toBe(false);
    expect(callbackTokenMatches(current, [undefined])).toBe(false);
  });
});
