import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Starts the stack's processes (each in its own process group, output to a log file) and stops
 * every one of them, on success, failure or Ctrl-C. Also measures them: peak RSS through
 * /proc/<pid>/status (VmHWM, reset per scenario through clear_refs) with a polled VmRSS maximum
 * as a fallback, and CPU seconds through /proc/<pid>/stat.
 */
export class Supervisor {
  constructor(logDirectory) {
    this.logDirectory = logDirectory;
    /** name -> { child, pid, logFile } */
    this.running = new Map();
    this.installExitHooks();
  }

  start(name, args, env, { cwd = process.cwd() } = {}) {
    if (this.running.has(name)) throw new Error(`${name} is already running`);
    const logFile = `${this.logDirectory}/${name}.log`;
    const fd = openSync(logFile, 'a');
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    const entry = { name, child, pid: child.pid, logFile, exited: false, exitCode: null };
    child.on('exit', (code, signal) => {
      entry.exited = true;
      entry.exitCode = code ?? signal;
    });
    this.running.set(name, entry);
    return entry;
  }

  /** Runs a node script to completion (tracked, so Ctrl-C stops it too); its stdout goes to `stdoutFile`. */
  async runNode(name, args, env, stdoutFile) {
    const out = openSync(stdoutFile, 'w');
    const err = openSync(`${this.logDirectory}/${name}.log`, 'a');
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', out, err], detached: true });
    closeSync(out);
    closeSync(err);
    const entry = { name, child, pid: child.pid, logFile: `${this.logDirectory}/${name}.log`, exited: false, exitCode: null };
    this.running.set(name, entry);
    const code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? signal)));
    entry.exited = true;
    this.running.delete(name);
    if (code !== 0) throw new Error(`${name} exited with ${code}; see ${entry.logFile}`);
    return readFileSync(stdoutFile, 'utf8');
  }

  pidOf(name) {
    return this.running.get(name)?.pid;
  }

  async waitForHttp(name, url, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const entry = this.running.get(name);
      if (entry?.exited) throw new Error(`${name} exited (${entry.exitCode}) before it was ready; see ${entry.logFile}`);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    throw new Error(`${name} did not answer ${url} within ${timeoutMs} ms; see ${this.running.get(name)?.logFile}`);
  }

  /** SIGTERM to the process group, then SIGKILL after the grace period. */
  async stop(name, graceMs = 15_000) {
    const entry = this.running.get(name);
    if (!entry) return;
    this.running.delete(name);
    if (entry.exited) return;
    const exited = new Promise((resolve) => entry.child.once('exit', resolve));
    signalGroup(entry.pid, 'SIGTERM');
    const timedOut = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      signalGroup(entry.pid, 'SIGKILL');
      await exited;
    }
  }

  /** Consumers first, the provider sandbox last, so nothing logs failures caused by the shutdown itself. */
  async stopAll() {
    const rank = (name) => (name === 'provider-sandbox' ? 2 : name.endsWith('-gateway') ? 1 : 0);
    for (const level of [0, 1, 2]) {
      await Promise.all([...this.running.keys()].filter((name) => rank(name) === level).map((name) => this.stop(name)));
    }
  }

  /** Last resort when the harness itself is dying: no awaiting, just kill every group. */
  killAllNow() {
    for (const entry of this.running.values()) if (!entry.exited) signalGroup(entry.pid, 'SIGKILL');
    this.running.clear();
  }

  installExitHooks() {
    process.on('exit', () => this.killAllNow());
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.on(signal, () => {
        console.error(`[bench] ${signal}: stopping every process this run started`);
        this.stopAll().finally(() => process.exit(130));
      });
    }
  }
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

const TICKS_PER_SECOND = 100;

export function readStatusKb(pid, field) {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** utime + stime in seconds; with `reapedChildren`, plus the CPU of children it has reaped (cutime + cstime). */
function cpuSecondsOf(pid, reapedChildren = false) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return (reapedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU seconds (utime + stime) of each PostgreSQL backend connected to `database`, by pid: the
 * process title names the database, so other databases' work on a shared server (other test
 * runs) is left out. The server's background processes (WAL writer, checkpointer) are not counted.
 */
export function backendCpuSeconds(database) {
  const cpu = new Map();
  for (const pid of pidsNamed(['postgres'])) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (title.includes(` ${database} `)) cpu.set(pid, cpuSecondsOf(pid) ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return cpu;
}

/** Every process whose command name is one of `names` (PostgreSQL backends, redis-server). */
function pidsNamed(names) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (names.includes(comm)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function machineCpuSeconds() {
  const [line] = readFileSync('/proc/stat', 'utf8').split('\n');
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + values[4];
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

/**
 * Measures one scenario: peak RSS (MB) and CPU seconds of each named process, PostgreSQL's and
 * Redis's CPU seconds (all their processes, including other users of the same servers), and
 * the machine's busy share.
 */
export class ResourceSampler {
  constructor(processes) {
    /** name -> pid */
    this.processes = processes;
  }

  start() {
    this.peakRssKb = new Map();
    this.hwmResetWorked = new Map();
    this.cpuStart = new Map();
    for (const [name, pid] of this.processes) {
      let reset;
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        reset = true;
      } catch {
        reset = false;
      }
      this.hwmResetWorked.set(name, reset);
      this.peakRssKb.set(name, readStatusKb(pid, 'VmRSS') ?? 0);
      this.cpuStart.set(name, cpuSecondsOf(pid));
    }
    this.serverCpuStart = this.serverCpu();
    this.machineStart = machineCpuSeconds();
    this.startedAt = process.hrtime.bigint();
    this.timer = setInterval(() => this.sample(), 200);
    this.timer.unref();
  }

  sample() {
    for (const [name, pid] of this.processes) {
      const rss = readStatusKb(pid, 'VmRSS');
      if (rss !== null && rss > (this.peakRssKb.get(name) ?? 0)) this.peakRssKb.set(name, rss);
    }
  }

  serverCpu() {
    // A backend that exits leaves its CPU in the postmaster's reaped-children counters, so the total never goes back.
    const sum = (pids) => pids.reduce((total, pid) => total + (cpuSecondsOf(pid, true) ?? 0), 0);
    return { postgres: sum(pidsNamed(['postgres'])), redis: sum(pidsNamed(['redis-server'])) };
  }

  stop() {
    clearInterval(this.timer);
    this.sample();
    const wallSeconds = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    const processes = {};
    for (const [name, pid] of this.processes) {
      const hwm = this.hwmResetWorked.get(name) ? readStatusKb(pid, 'VmHWM') : null;
      const polled = this.peakRssKb.get(name) ?? 0;
      const cpuEnd = cpuSecondsOf(pid);
      const cpuStart = this.cpuStart.get(name);
      processes[name] = {
        peak_rss_mb: round(Math.max(hwm ?? 0, polled) / 1024, 1),
        rss_source: hwm !== null ? 'VmHWM (reset at scenario start)' : 'VmRSS polled every 200 ms',
        cpu_seconds: cpuEnd !== null && cpuStart !== null ? round(cpuEnd - cpuStart, 2) : null,
        cpu_share_of_one_core: cpuEnd !== null && cpuStart !== null ? round((cpuEnd - cpuStart) / wallSeconds, 2) : null,
      };
    }
    const serverEnd = this.serverCpu();
    const machineEnd = machineCpuSeconds();
    const machineTotal = machineEnd.total - this.machineStart.total;
    return {
      wall_seconds: round(wallSeconds, 2),
      processes,
      postgres_cpu_share_of_one_core: round(Math.max(0, serverEnd.postgres - this.serverCpuStart.postgres) / wallSeconds, 2),
      redis_cpu_share_of_one_core: round(Math.max(0, serverEnd.redis - this.serverCpuStart.redis) / wallSeconds, 2),
      machine_busy_share: machineTotal > 0 ? round((machineEnd.busy - this.machineStart.busy) / machineTotal, 2) : null,
    };
  }
}

export const round = (value, places = 0) => {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
};

