import { csvCell, csvLine, decimalCell } from './csv.js';

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+27821234567', `"'+27821234567"`],
    ['-1+1', `"'-1+1"`],
    ['@SUM(A1:A2)', `"'@SUM(A1:A2)"`],
    ['\tcmd', `"'\tcmd"`],
    ['\rcmd', `"'\rcmd"`],
  ])('neutralises a text cell starting a formula: %j', (text, expected) => {
    expect(csvCell(text)).toBe(expected);
  });

  it('quotes separators, quotes and line breaks, and leaves plain text alone', () => {
    expect(csvCell('order-1042')).toBe('order-1042');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
  });

  it('writes exact decimals as numbers, a negative one too, and refuses anything else as a decimal', () => {
    expect(csvCell(decimalCell('-150.00'))).toBe('-150.00');
    expect(csvCell(decimalCell('0.01'))).toBe('0.01');
    expect(() => csvCell(decimalCell('=1+1'))).toThrow();
  });

  it('ends each line with CRLF', () => {
    expect(csvLine(['a', decimalCell('1.00'), null])).toBe('a,1.00,\r\n');
  });
});
