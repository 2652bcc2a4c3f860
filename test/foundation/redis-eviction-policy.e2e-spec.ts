import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createRedisConnection, reportEvictionPolicy } from '#queues';

class CapturingLogger extends Logger {
  readonly errors: string[] = [];
  override error(message: unknown): void {
    this.errors.push(String(message));
  }
  override warn(): void {}
}

/** A throwaway Redis of our own, so the machine's shared one is never reconfigured. */
async function startRedis(policy: string): Promise<{ url: string; stop: () => void }> {
  // A port the system just gave out (a random one collided once), and a server that answers before the test uses it.
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', policy], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(() => resolve(true))).once('error', () => resolve(false));
    });
    if (answered) break;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

describe('Redis eviction policy check at start', () => {
  it('reports anything but noeviction loudly', async () => {
    const redis = await startRedis('allkeys-lru');
    const client = createRedisConnection(redis.url, 'client');
    const logger = new CapturingLogger();
    try {
      await expect(reportEvictionPolicy(client, logger)).resolves.toBe('allkeys-lru');
      expect(logger.errors.join('\n')).toMatch(/REDIS MISCONFIGURED.*allkeys-lru.*noeviction/);
    } finally {
      client.disconnect();
      redis.stop();
    }
  });

  it('stays quiet for noeviction', async () => {
    const redis = await startRedis('noeviction');
    const client = createRedisConnection(redis.url, 'client');
    const logger = new CapturingLogger();
    try {
      await expect(reportEvictionPolicy(client, logger)).resolves.toBe('noeviction');
      expect(logger.errors).toEqual([]);
    } finally {
      client.disconnect();
      redis.stop();
    }
  });
});
