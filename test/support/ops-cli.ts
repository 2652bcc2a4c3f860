import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The compiled operator CLI (`npm run build` makes it). */
export const OPS_CLI = 'dist/apps/ops/src/main.js';

export interface OpsResult<Json = Record<string, unknown>> {
  json: Json;
  code: number;
  stderr: string;
}

/** Runs one compiled `ops` command with `env`: its JSON on success, else its exit code and stderr. */
export function runOps(env: NodeJS.ProcessEnv, ...args: string[]): Promise<OpsResult> {
  return runOpsWithin(30_000, env, ...args);
}

/** runOps with a time limit of its own, and the JSON typed as the caller reads it. */
export async function runOpsWithin<Json = Record<string, unknown>>(timeoutMs: number, env: NodeJS.ProcessEnv, ...args: string[]): Promise<OpsResult<Json>> {
  try {
    const { stdout, stderr } = await run('node', [OPS_CLI, ...args], { env, timeout: timeoutMs });
    return { json: JSON.parse(stdout) as Json, code: 0, stderr };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { json: {} as Json, code: failure.code, stderr: failure.stderr };
  }
}
