import { stripVTControlCharacters } from 'node:util';
import { QueryErrorLogger } from './query-logger.js';

describe('QueryErrorLogger', () => {
  const logged: unknown[][] = [];
  const original = console.log;
  beforeEach(() => {
    logged.length = 0;
    // TypeORM highlights SQL with colour codes where it detects colour support (CI=true is enough).
    console.log = (...args: unknown[]) => void logged.push(args.map((arg) => stripVTControlCharacters(String(arg))));
  });
  afterEach(() => {
    console.log = original;
  });

  const failure = (code: string) => Object.assign(new Error('failed'), { code });

  it('leaves out a deliberate refusal (SQLSTATE class ZA) of a database function', () => {
    new QueryErrorLogger().logQueryError(failure('ZA001') as unknown as string, 'SELECT * FROM purchase_admit($1)', ['a']);
    expect(logged).toEqual([]);
  });

  it('logs every other failed statement with its text', () => {
    new QueryErrorLogger().logQueryError(failure('23505') as unknown as string, 'INSERT INTO t VALUES ($1)', ['a']);
    new QueryErrorLogger().logQueryError(failure('57014') as unknown as string, 'SELECT pg_sleep(1)', []);
    expect(logged.map((args) => args.map(String).join(' ')).filter((line) => line.includes('query failed'))).toHaveLength(2);
    expect(logged.some((args) => args.map(String).join(' ').includes('INSERT INTO t VALUES'))).toBe(true);
  });

  it("never logs a failed statement's parameters", () => {
    new QueryErrorLogger().logQueryError(failure('23505') as unknown as string, 'INSERT INTO t VALUES ($1, $2)', ['secret-parameter', 'vendor-metadata']);
    const text = logged.map((args) => args.map(String).join(' ')).join('\n');
    expect(text).toContain('INSERT INTO t VALUES');
    expect(text).not.toContain('secret-parameter');
    expect(text).not.toContain('vendor-metadata');
  });
});
