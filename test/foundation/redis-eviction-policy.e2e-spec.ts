import { spawn, type ChildProcess } from 'node:child_process';
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
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', policy], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
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
