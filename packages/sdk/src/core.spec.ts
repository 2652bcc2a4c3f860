import { resolveBaseUrl } from './core.js';

describe('resolveBaseUrl', () => {
  it('purchase: the base address with /api/v1 as given, a bare origin completed with it, anything else refused', () => {
    expect(resolveBaseUrl('https://purchase.example.com/api/v1', 'versioned')).toBe('https://purchase.example.com/api/v1');
    expect(resolveBaseUrl('http://127.0.0.1:3000/api/v1/', 'versioned')).toBe('http://127.0.0.1:3000/api/v1');
    expect(resolveBaseUrl('http://127.0.0.1:3000', 'versioned')).toBe('http://127.0.0.1:3000/api/v1');
    expect(() => resolveBaseUrl('http://127.0.0.1:3000/api', 'versioned')).toThrow(/base address/);
    expect(() => resolveBaseUrl('http://127.0.0.1:3000/api/v1/api/v1', 'versioned')).toThrow(/base address/);
  });

  it('payout: the origin only, since every payout path starts with /api/v1', () => {
    expect(resolveBaseUrl('http://127.0.0.1:3001/', 'origin')).toBe('http://127.0.0.1:3001');
    expect(() => resolveBaseUrl('http://127.0.0.1:3001/api/v1', 'origin')).toThrow(/origin/);
  });
});

describe('resolveBaseUrl: a missing or malformed baseUrl says what is expected', () => {
  it.each([
    [undefined, /baseUrl is required.*is the environment variable set/],
    ['', /baseUrl is required/],
    ['127.0.0.1:3000', /not an absolute URL|must use http/],
    ['purchase.example.com/api/v1', /not an absolute URL/],
    ['ftp://purchase.example.com', /must use http: or https:/],
    ['https://purchase.example.com/api/v1?x=1', /must not carry a query/],
  ])('%p', (baseUrl, message) => {
    expect(() => resolveBaseUrl(baseUrl, 'versioned')).toThrow(message);
  });
});
