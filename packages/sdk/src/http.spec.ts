import { Http } from './http.js';

describe('Http.send', () => {
  it('fills and encodes the path, drops undefined query values, sends JSON with the auth header', async () => {
    const seen: Request[] = [];
    const http = new Http('http://gw.test/api/v1', { Authorization: 'Bearer t' });
    const fetch = async (request: Request) => {
      seen.push(request);
      return new Response(JSON.stringify({ success: true, data: { ok: true } }), { headers: { 'content-type': 'application/json' } });
    };
    const result = await http.send('POST', '/payouts/{reference}/resend-sms', { params: { path: { reference: 'a/b:c' }, query: { page: 2, skip: undefined } }, body: { x: 1 }, headers: { 'X-Trace': '1' }, fetch });
    expect(result.data).toEqual({ success: true, data: { ok: true } });
    expect(seen[0].url).toBe('http://gw.test/api/v1/payouts/a%2Fb%3Ac/resend-sms?page=2');
    expect(seen[0].headers.get('authorization')).toBe('Bearer t');
    expect(seen[0].headers.get('content-type')).toBe('application/json');
    expect(seen[0].headers.get('x-trace')).toBe('1');
    expect(await seen[0].text()).toBe('{"x":1}');
  });

  it('answers the parsed error body (or its text) on an error status, and refuses an empty path parameter', async () => {
    const http = new Http('http://gw.test', {});
    const json = await http.send('GET', '/x', { fetch: async () => new Response('{"code":"NOT_FOUND"}', { status: 404 }) });
    expect(json).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(json.data).toBeUndefined();
    const text = await http.send('GET', '/x', { fetch: async () => new Response('Bad Gateway', { status: 502 }) });
    expect(text.error).toBe('Bad Gateway');
    await expect(http.send('GET', '/payouts/{reference}', { params: { path: { reference: '' } }, fetch: async () => new Response('') })).rejects.toThrow(/reference is required/);
  });
});
