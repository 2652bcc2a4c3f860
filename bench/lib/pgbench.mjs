import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { dropDatabase, recreateDatabase } from './database.mjs';

const run = promisify(execFile);

/**
 * The database's ceiling on this machine: pgbench's built-in TPC-B-like script (five
 * statements, three updates of which one hits a 10-row branches table, as hot as our
 * per-vendor rows) on its own database of the same server. Every transaction's latency is
 * logged (-l), so its percentiles are computed like the HTTP scenarios'.
 */
export async function runPgbench(settings, workDirectory, log) {
  const { scale, clients, threads, seconds } = settings.pgbench;
  const name = settings.pgbenchDatabase;
  const url = new URL(`${settings.pgBase}/${name}`);
  const connection = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  await recreateDatabase(settings.pgBase, name);
  try {
    log(`pgbench: initialising scale ${scale}`);
    await run('pgbench', ['-i', '-q', '-s', String(scale), ...connection, name], { maxBuffer: 16 * 1024 * 1024 });
    const logDirectory = `${workDirectory}/pgbench`;
    mkdirSync(logDirectory, { recursive: true });
    log(`pgbench: TPC-B, ${clients} clients, ${threads} threads, ${seconds} s`);
    const { stdout } = await run(
      'pgbench',
      ['-c', String(clients), '-j', String(threads), '-T', String(seconds), '-l', `--log-prefix=${logDirectory}/pgbench_log`, ...connection, name],
      { maxBuffer: 16 * 1024 * 1024, cwd: logDirectory },
    );
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    const latencies = [];
    for (const file of readdirSync(logDirectory).filter((entry) => entry.startsWith('pgbench_log'))) {
      for (const line of readFileSync(`${logDirectory}/${file}`, 'utf8').split('\n')) {
        // client_id transaction_no time_us script_no time_epoch time_us_fraction
        const fields = line.split(' ');
        if (fields.length >= 3) latencies.push(Number(fields[2]) / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    const at = (p) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] * 100) / 100 : null);
    return {
      scale,
      clients,
      threads,
      duration_seconds: seconds,
      throughput_per_second: Math.round(tps * 10) / 10,
      transactions: latencies.length,
      errors: failed,
      latency_ms: { p50: at(50), p95: at(95), p99: at(99), mean: latencies.length ? Math.round((latencies.reduce((s, v) => s + v, 0) / latencies.length) * 100) / 100 : null, max: at(100) },
      raw_summary: stdout.trim().split('\n').filter((line) => /tps|latency|transactions|scaling|clients|threads/.test(line)),
    };
  } finally {
    await dropDatabase(settings.pgBase, name);
  }
}
