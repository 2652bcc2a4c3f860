import net, { type AddressInfo, type Socket } from 'node:net';

/**
 * What the proxy does with traffic:
 * - `pass`: forwards both ways (after `latencyMs`, if set);
 * - `refuse`: resets every new connection at once (a stopped server: ECONNRESET on connect);
 * - `blackhole`: accepts connections and never forwards a byte either way (a network partition;
 *   connections already open freeze too);
 * - `http-503`: answers every new connection with a canned HTTP 503 and closes it (an HTTP
 *   upstream failing in front of the real one; for the provider only).
 */
export type FaultMode = 'pass' | 'refuse' | 'blackhole' | 'http-503';

export interface FaultProxyStats {
  accepted: number;
  refused: number;
  cut: number;
  blackholed: number;
  answered503: number;
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
}

/**
 * A small TCP proxy between an app under test and PostgreSQL, Redis or the provider sandbox, so
 * tests can break the network path of their own apps without touching the machine's shared
 * servers. Listens on 127.0.0.1 on a free port.
 */
export class FaultProxy {
  private readonly pairs = new Set<Pair>();
  /** Every client socket ever accepted and still open, whatever the mode did with it. */
  private readonly sockets = new Set<Socket>();
  private mode: FaultMode = 'pass';
  private latencyMs = 0;
  private latencyDirection: 'both' | 'response' = 'both';
  readonly stats: FaultProxyStats = { accepted: 0, refused: 0, cut: 0, blackholed: 0, answered503: 0 };

  private constructor(
    private readonly server: net.Server,
    readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const server = net.createServer();
    const proxy = new FaultProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** A proxy for the host and port of a URL (postgres://, redis://, http://). */
  static forUrl(url: string): Promise<FaultProxy> {
    const parsed = new URL(url);
    const defaults: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'redis:': 6379, 'http:': 80 };
    return FaultProxy.start({ host: parsed.hostname, port: Number(parsed.port || defaults[parsed.protocol]) });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  }

  get openConnections(): number {
    return this.pairs.size;
  }

  setMode(mode: FaultMode): void {
    this.mode = mode;
    if (mode === 'pass') for (const pair of this.pairs) this.resume(pair);
    if (mode === 'blackhole') for (const pair of this.pairs) this.freeze(pair);
  }

  /**
   * Delay added to every forwarded chunk. `response` delays only what comes back, so requests
   * still arrive at once (a provider that acts at once but answers late).
   */
  setLatency(ms: number, direction: 'both' | 'response' = 'both'): void {
    this.latencyMs = ms;
    this.latencyDirection = direction;
  }

  /** Resets every open connection (both sides see the connection drop). */
  cutAll(): number {
    const count = this.pairs.size;
    for (const pair of [...this.pairs]) this.destroy(pair, true);
    this.stats.cut += count;
    return count;
  }

  async close(): Promise<void> {
    for (const pair of [...this.pairs]) this.destroy(pair, false);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    if (this.mode === 'refuse') {
      this.stats.refused += 1;
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'http-503') {
      this.stats.answered503 += 1;
      const body = '{"errors":[{"code":"UNAVAILABLE","message":"fault proxy"}]}';
      client.end(`HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      // A client that never closes its side must not keep the socket (and close()) waiting.
      setTimeout(() => client.destroy(), 1_000).unref();
      return;
    }
    this.stats.accepted += 1;
    const pair: Pair = { client, upstream: null };
    this.pairs.add(pair);
    client.on('close', () => this.destroy(pair, false));
    if (this.mode === 'blackhole') {
      this.stats.blackholed += 1;
      this.freeze(pair);
      // A frozen connection that is later let through starts forwarding then.
      return;
    }
    this.connectUpstream(pair);
  }

  private connectUpstream(pair: Pair): void {
    const upstream = net.connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', () => this.destroy(pair, true));
    upstream.on('close', () => this.destroy(pair, false));
    this.pipe(pair.client, upstream, pair, 'request');
    this.pipe(upstream, pair.client, pair, 'response');
  }

  private pipe(from: Socket, to: Socket, pair: Pair, direction: 'request' | 'response'): void {
    from.on('data', (chunk: Buffer) => {
      if (!this.pairs.has(pair)) return;
      const write = () => {
        if (this.pairs.has(pair) && !to.destroyed) to.write(chunk);
      };
      if (this.latencyMs > 0 && (this.latencyDirection === 'both' || direction === 'response')) {
        // Keep order: pause the reader while a delayed chunk waits.
        from.pause();
        setTimeout(() => {
          write();
          if (this.mode !== 'blackhole') from.resume();
        }, this.latencyMs);
      } else {
        write();
      }
    });
    from.on('end', () => {
      if (!to.destroyed) to.end();
    });
  }

  private freeze(pair: Pair): void {
    pair.client.pause();
    pair.upstream?.pause();
  }

  private resume(pair: Pair): void {
    if (!pair.upstream && !pair.client.destroyed) this.connectUpstream(pair);
    pair.client.resume();
    pair.upstream?.resume();
  }

  private destroy(pair: Pair, reset: boolean): void {
    if (!this.pairs.delete(pair)) return;
    for (const socket of [pair.client, pair.upstream]) {
      if (!socket || socket.destroyed) continue;
      if (reset && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
    }
  }
}
