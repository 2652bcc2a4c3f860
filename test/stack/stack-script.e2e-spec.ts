import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * `npm run stack` as a developer uses it: the script starts everything, prints working tokens,
 * and Ctrl-C (SIGINT to the terminal's foreground process group) leaves no process it started.
 * It runs beside a developer's own stack: every port moved by STACK_PORT_OFFSET, this run's
 * database and a queue prefix of its own.
 */
describe('npm run stack', () => {
  const offset = 20_000 + Math.floor(Math.random() * 20_000);

  /** Every descendant of `root` by parent pid (the apps run in sessions of their own, still children). */
  function descendants(root: number): number[] {
    const parents = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // Fields after the command name, which may itself hold spaces or parentheses.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // The process ended while the table was read.
      }
    }
    const found: number[] = [];
    const queue = [root];
    while (queue.length > 0) {
      const parent = queue.shift()!;
      for (const [pid, ppid] of parents) {
        if (ppid !== parent) continue;
        found.push(pid);
        queue.push(pid);
      }
    }
    return found;
  }

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
    } catch {
      return false;
    }
  };

  it('starts every app with a working demo vendor and leaves nothing behind after Ctrl-C', async () => {
    const script = spawn('bash', ['scripts/stack.sh'], {
      detached: true, // its own process group, as a terminal's foreground job
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // As from a shell whose own Node is older: the script must put the pinned Node first itself.
        PATH: (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('/.node/')).join(':'),
        STACK_PORT_OFFSET: String(offset),
        DATABASE_URL: process.env.E2E_DATABASE_URL,
        QUEUE_PREFIX: `{stack-${process.pid}-${Date.now()}}`,
        SETTLEMENT_INGEST_INTERVAL_MS: '0',
      },
    });
    let output = '';
    script.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    script.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => script.on('exit', (code) => resolve(code)));
    let started: number[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the stack did not come up in 5 minutes:\n${output.slice(-3000)}`)), 300_000);
        const settle = (outcome: () => void) => {
          clearInterval(check);
          clearTimeout(timer);
          outcome();
        };
        const check = setInterval(() => {
          if (output.includes('The stack is up.') && output.includes('Ctrl-C stops everything.')) settle(resolve);
        }, 250);
        void exited.then((code) => settle(() => reject(new Error(`the stack script exited (${code}):\n${output.slice(-3000)}`))));
      });

      // The printed purchase token works against the printed base_url (with its /api/v1, as the
      // contract has it), exactly as the banner's "Try:" line and the README call it.
      const [, baseUrl, token] = /"purchase": \{\s*"base_url": "([^"]+)",\s*"token": "([^"]+)"/.exec(output) ?? [];
      expect({ baseUrl, token }).toEqual({ baseUrl: `http://127.0.0.1:${3000 + offset}/api/v1`, token: expect.stringMatching(/^gwt_test_/) });
      const services = await fetch(`${baseUrl}/services`, { headers: { authorization: `Bearer ${token}` } });
      expect(services.status).toBe(200);

      started = descendants(script.pid!);
      // The apps' node processes (not the bash pipelines that start them).
      const apps = started.filter((pid) => alive(pid) && /^node\0dist\/apps\//.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
      expect(apps.length).toBeGreaterThanOrEqual(6);
      // Every app runs on the pinned Node (scripts/node/pinned-node.txt), not the machine's.
      const pinned = /^version (\S+)$/m.exec(readFileSync('scripts/node/pinned-node.txt', 'utf8'))![1];
      for (const pid of apps) expect(readlinkSync(`/proc/${pid}/exe`)).toContain(`/.node/v${pinned}-linux-`);

      process.kill(-script.pid!, 'SIGINT');
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 60 s'), 60_000))]);
      expect(code).toBe(130);
      expect(started.filter(alive).map((pid) => `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`)).toEqual([]);
      // Each app drained on its own grace period and said so through its log pipeline.
      expect(output.match(/Drained; exiting/g)?.length ?? 0).toBeGreaterThanOrEqual(5);
    } finally {
      for (const pid of [script.pid!, ...started]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }, 420_000);
});
