import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Image tag the container tests build and run (scripts/test-containers.sh builds them). */
export const IMAGE_TAG = process.env.CONTAINER_IMAGE_TAG ?? 'test';
export const image = (target: string) => `localhost/za-payments/${target}:${IMAGE_TAG}`;

/** The hardening every app container runs with, as in Kubernetes and compose. */
export const HARDENED = ['--read-only', '--tmpfs', '/tmp', '--user', '1000:1000', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'];

export async function podman(args: string[], timeoutMs = 120_000): Promise<{ stdout: string; stderr: string }> {
  return exec('podman', args, { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 });
}

/** Runs a one-shot container to completion; resolves with its exit code and output. */
export async function runOnce(target: string, env: Record<string, string>, command: string[] = [], timeoutMs = 120_000) {
  const args = ['run', '--rm', '--network', 'host', ...HARDENED, ...envArgs(env), image(target), ...command];
  return exec('podman', args, { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof error.code === 'number' ? error.code : -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}

/** Starts a long-running app container in the background on the host network. */
export async function start(name: string, target: string, env: Record<string, string>): Promise<void> {
  await podman(['run', '-d', '--name', name, '--network', 'host', ...HARDENED, ...envArgs(env), image(target)]);
}

export async function inspect(name: string): Promise<ContainerInspection> {
  const { stdout } = await podman(['inspect', name]);
  return (JSON.parse(stdout) as ContainerInspection[])[0];
}

export async function logs(name: string): Promise<string> {
  const { stdout, stderr } = await podman(['logs', name]).catch(() => ({ stdout: '', stderr: '' }));
  return stdout + stderr;
}

export async function remove(names: string[]): Promise<void> {
  if (names.length > 0) await podman(['rm', '-f', '-t', '0', ...names]).catch(() => undefined);
}

function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
}

export interface ContainerInspection {
  Config: { User: string; Env: string[] };
  HostConfig: { ReadonlyRootfs: boolean };
  State: { Running: boolean; ExitCode: number; StartedAt: string; FinishedAt: string };
}
