import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach in production (SSRF): loopback, private, link-local
 * (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified, multicast, reserved,
 * and their IPv6 counterparts, including IPv4-mapped IPv6.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  // IPv4-compatible (deprecated) ::a.b.c.d, which the URL parser writes as ::7f00:1.
  ['::', 96],
  // 6to4 and Teredo embed an IPv4 address (2002:7f00:1::); no webhook receiver needs them.
  ['2002::', 16],
  ['2001::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class WebhookUrlRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WebhookUrlRefusedError';
  }
}

/** Shape rules for a registered URL: HTTPS (plain HTTP only outside production), no credentials, no fragment. */
export function urlProblems(raw: string, production: boolean): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['url must be an absolute URL'];
  }
  const problems: string[] = [];
  if (raw.length > 2048) problems.push('url must be at most 2048 characters');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !production)) problems.push('url must use https');
  if (url.username || url.password) problems.push('url must not carry credentials');
  if (url.hash) problems.push('url must not carry a fragment');
  return problems;
}

/** Resolves a host name to every address it has (the system resolver by default; tests inject one). */
export type WebhookHostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemHostResolver: WebhookHostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Injection token of the resolver the endpoints service and the deliverer use (WebhookHostResolver). */
export const WEBHOOK_HOST_RESOLVER = Symbol('WEBHOOK_HOST_RESOLVER');

/**
 * Resolves the host and refuses it in production when ANY address is blocked, so a name that
 * resolves to a public and a private address cannot be used to reach the private one. Returns
 * the addresses; the delivery connects to one of exactly these (no second resolution a DNS
 * rebinding could change). `hostname` must come from the WHATWG URL parser (`new URL(raw).hostname`),
 * which already normalises every IPv4 spelling (`2130706433`, `0x7f000001`, `0177.0.0.1`,
 * `127.1`) to dotted decimal and IPv6 to its canonical form, so only canonical literals reach here.
 */
export async function resolveDeliverable(
  hostname: string,
  production: boolean,
  resolve: WebhookHostResolver = systemHostResolver,
): Promise<{ address: string; family: number }[]> {
  const bare = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolve(bare);
  if (addresses.length === 0) throw new WebhookUrlRefusedError('host does not resolve');
  if (production && addresses.some(({ address }) => isBlockedAddress(address))) {
    throw new WebhookUrlRefusedError('host resolves to a private, loopback or link-local address');
  }
  return addresses;
}
