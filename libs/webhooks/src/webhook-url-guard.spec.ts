import { isBlockedAddress, resolveDeliverable, urlProblems } from './webhook-url-guard.js';

describe('webhook URL guard', () => {
  it.each(['127.0.0.1', '10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::7f00:1', '2002:7f00:1::1', '2001:0:4136:e378::1', 'not-an-ip'])(
    'blocks %s',
    (address) => expect(isBlockedAddress(address)).toBe(true),
  );

  it.each(['8.8.8.8', '41.0.0.1', '2001:4860:4860::8888'])('allows public %s', (address) => expect(isBlockedAddress(address)).toBe(false));

  it('requires https in production only, and refuses credentials and fragments', () => {
    expect(urlProblems('http://vendor.example/hooks', true)).toEqual(['url must use https']);
    expect(urlProblems('http://vendor.example/hooks', false)).toEqual([]);
    expect(urlProblems('https://user:pw@vendor.example/hooks#x', true)).toEqual(['url must not carry credentials', 'url must not carry a fragment']);
    expect(urlProblems('ftp://vendor.example', false)).toEqual(['url must use https']);
  });

  it('refuses a literal loopback host in production and allows it outside', async () => {
    await expect(resolveDeliverable('127.0.0.1', true)).rejects.toThrow(/loopback/);
    await expect(resolveDeliverable('[::1]', true)).rejects.toThrow(/loopback/);
    await expect(resolveDeliverable('127.0.0.1', false)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('checks every address an injected resolver gives for a name, and a trailing dot changes nothing', async () => {
    const resolver = async (name: string) => (name === 'mixed.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.1', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]);
    await expect(resolveDeliverable('mixed.example', true, resolver)).rejects.toThrow(/private/);
    await expect(resolveDeliverable('public.example', true, resolver)).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(resolveDeliverable('127.0.0.1.', true, resolver)).rejects.toThrow(/loopback/);
  });
});
