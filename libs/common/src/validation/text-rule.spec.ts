import fc from 'fast-check';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { IsCleanText, isCleanText, textRuleProblem } from './text-rule.js';

describe('the text rule for free text', () => {
  it.each([
    ['NUL', 'Tha\u0000bo', /control/],
    ['a tab', 'Tha\tbo', /control/],
    ['a newline', 'Thabo\n', /control/],
    ['DEL', 'Thabo\u007f', /control/],
    ['a C1 control', 'Thabo\u0085', /control/],
    ['a line separator', 'Tha\u2028bo', /control/],
    ['a lone high surrogate', 'Thabo\ud800', /surrogate/],
    ['a lone low surrogate', '\udc00Thabo', /surrogate/],
    ['reversed surrogates', 'Th\udc00\ud800abo', /surrogate/],
    ['a zero-width space', 'Tha\u200bbo', /invisible/],
    ['a right-to-left override', '\u202eobahT', /invisible/],
    ['a bidi isolate', 'Thabo\u2066', /invisible/],
    ['a byte-order mark', '\ufeffThabo', /invisible/],
    ['a soft hyphen', 'Tha\u00adbo', /invisible/],
    ['a word joiner', 'Tha\u2060bo', /invisible/],
    ['a zero-width joiner at the end', 'Thabo\u200d', /invisible/],
    ['a zero-width non-joiner at the start', '\u200cThabo', /invisible/],
    ['a joiner next to a space', 'Thabo \u200d Mokoena', /invisible/],
    ['only spaces', '   ', /whitespace/],
    ['only a no-break space', '\u00a0', /whitespace/],
    ['only an ideographic space', '\u3000\u3000', /whitespace/],
  ])('refuses %s', (_label, value, reason) => {
    expect(textRuleProblem(value)).toMatch(reason);
    expect(isCleanText(value)).toBe(false);
  });

  it.each([
    ['a plain name', 'Thabo Mokoena'],
    ['accents and apostrophes', "Zoë O'Brien-Ndlovu"],
    ['isiZulu with a click letter', 'Nqobile Dlamini'],
    ['Afrikaans', 'Pieter van der Merwe'],
    ['Arabic', 'محمد'],
    ['Devanagari with a joiner between letters', 'क्\u200dष'],
    ['an emoji ZWJ sequence', '👩\u200d💻'],
    ['an astral character (a well-formed surrogate pair)', '𝒜lice'],
    ['inner spaces and a no-break space', 'Mary\u00a0Jane Smith'],
    ['the empty string (left to the length rule)', ''],
  ])('accepts %s', (_label, value) => {
    expect(textRuleProblem(value)).toBeUndefined();
  });

  it('accepts every string of printable, well-formed characters that is not only whitespace', () => {
    const printable = fc.string({ unit: 'grapheme', minLength: 1 }).filter((value) => !/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u.test(value) && /\S/u.test(value));
    fc.assert(fc.property(printable, (value) => textRuleProblem(value) === undefined));
  });

  it('refuses any string once a control character, unpaired surrogate or format character is inserted', () => {
    const bad = fc.constantFrom('\u0000', '\u0007', '\u001b', '\u007f', '\u0090', '\ud800', '\udfff', '\u200b', '\u202e', '\u2066', '\ufeff', '\u2060', '\u00ad');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), bad, fc.nat(), (value, character, at) => {
        const index = value.length === 0 ? 0 : at % (value.length + 1);
        return textRuleProblem(`${value.slice(0, index)}${character}${value.slice(index)}`) !== undefined;
      }),
    );
  });

  it('refuses every whitespace-only string', () => {
    const space = fc.constantFrom(' ', '\u00a0', '\u2003', '\u3000', '\u202f', '\u205f');
    fc.assert(fc.property(fc.array(space, { minLength: 1 }), (spaces) => textRuleProblem(spaces.join('')) === 'must not be only whitespace'));
  });

  it('is linear on a long hostile value (no catastrophic backtracking)', () => {
    const value = `${'a\u200d'.repeat(200_000)}a`;
    const started = Date.now();
    expect(textRuleProblem(value)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  describe('IsCleanText', () => {
    class Named {
      @IsCleanText()
      name!: unknown;
    }
    const problems = (name: unknown) => validateSync(plainToInstance(Named, { name })).flatMap((error) => Object.values(error.constraints ?? {}));

    it('names the field and the reason, and leaves non-strings to the type rule', () => {
      expect(problems('Tha\u0000bo')).toEqual(['name must not contain control characters (such as NUL, tab or newline)']);
      expect(problems('   ')).toEqual(['name must not be only whitespace']);
      expect(problems('Thabo')).toEqual([]);
      expect(problems(42)).toEqual([]);
    });
  });
});
