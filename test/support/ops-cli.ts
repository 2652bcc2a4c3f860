import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The compiled operator CLI (`npm run build` makes it). */
export const OPS_CLI = 'dist/apps/ops/src/main.js';

export interface OpsResult {
  json: Record<string, unknown>;
  code: number;
  stderr: string;
}

/** Runs one compiled `ops` command with `env`: its JSON on success, else its exit code and stderr. */
export async function runOps(env: NodeJS.ProcessEnv, ...args: string[]): Promise<OpsResult> {
  try {
    const { stdout, stderr } = await run('node', [OPS_CLI, ...args], { env, timeout: 30_000 });
    return { json: JSON.parse(stdout), code: 0, stderr };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { json: {}, code: failure.code, stderr: failure.stderr };
  }
}
