import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

/** Compiled entry points (npx tsc -p tsconfig.build.json). */
export const COMPILED = {
  worker: 'dist/apps/reconciliation-worker/src/main.js',
  purchaseGateway: 'dist/apps/purchase-gateway/src/main.js',
  payoutGateway: 'dist/apps/payout-gateway/src/main.js',
  dashboard: 'dist/apps/vendor-dashboard/src/main.js',
  sandbox: 'dist/apps/provider-sandbox/src/main.js',
} as const;

export type CompiledApp = keyof typeof COMPILED;

/** Log lines that say the app is ready: the HTTP services log "listening", the worker "Consuming". */
const READY_PATTERN: Record<CompiledApp, RegExp> = {
  worker: /Consuming \d+ queues/,
  purchaseGateway: /purchase-gateway listening on port/,
  payoutGateway: /payout-gateway listening on port/,
  dashboard: /vendor-dashboard listening on port/,
  sandbox: /provider-sandbox listening on port/,
};

export interface SpawnedApp {
  name: CompiledApp;
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything the process wrote, stdout and stderr. */
  output: () => string;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function assertCompiled(...apps: CompiledApp[]): void {
  for (const app of apps) {
    if (!existsSync(COMPILED[app])) throw new Error(`${COMPILED[app]} is missing: run npx tsc -p tsconfig.build.json first (npm test does)`);
  }
}

/** A port free right now on 127.0.0.1 (the kernel's choice), for apps that must keep theirs across restarts. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts a compiled app as a child process with exactly the given environment (plus PATH), the
 * run's logs captured. `ready` resolves on the app's own ready log line (LOG_LEVEL must be info
 * or lower) and rejects if the process exits first.
 */
export function spawnApp(name: CompiledApp, env: Record<string, string | undefined>, port?: number): SpawnedApp {
  const child = spawn(process.execPath, [COMPILED[name]], {
    env: { PATH: process.env.PATH, APP_ENV: 'test', LOG_LEVEL: 'info', SETTLEMENT_INGEST_INTERVAL_MS: '0', ...env, ...(port === undefined ? {} : { PORT: String(port) }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (READY_PATTERN[name].test(output)) {
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output.slice(-3000)}`)));
  });
  ready.catch(() => undefined);
  return {
    name,
    child,
    port: port ?? 0,
    url: `http://127.0.0.1:${port ?? 0}`,
    output: () => output,
    ready,
    exited,
    kill: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
