import { readFileSync, readdirSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per origin
 * (our code, each npm package, Node internals, GC, idle), so the report can say where a
 * request's CPU goes.
 */
export function summariseProfile(file, { top = 20, window = null } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map();
  // Sample times are on the monotonic clock (as process.hrtime); `window` keeps the measured run only.
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index] ?? 0;
    if (window && (at < window[0] || at > window[1])) continue;
    const id = profile.samples[index];
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);
  const functions = new Map();
  const origins = new Map();
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id).callFrame;
    const origin = originOf(frame);
    const key = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
    origins.set(origin, (origins.get(origin) ?? 0) + micros);
  }
  const idle = origins.get('(idle)') ?? 0;
  const busy = total - idle;
  const share = (micros) => Math.round((micros / busy) * 1000) / 10;
  return {
    // Relative to the repository, so a committed result names no path of the machine that ran it.
    file: relative(process.cwd(), file),
    sampled_seconds: Math.round(total / 1e4) / 100,
    idle_share_percent: Math.round((idle / total) * 1000) / 10,
    note: 'shares are of non-idle CPU time',
    top_self_time: [...functions.entries()]
      .filter(([key]) => !key.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, micros]) => ({ function: fn, self_ms: Math.round(micros / 1000), share_percent: share(micros) })),
    by_origin: [...origins.entries()]
      .filter(([origin]) => origin !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([origin, micros]) => ({ origin, self_ms: Math.round(micros / 1000), share_percent: share(micros) })),
  };
}

function shortUrl(url) {
  if (!url) return '';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

function originOf(frame) {
  const { url, functionName } = frame;
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(garbage collector)') return '(garbage collector)';
  if (functionName === '(program)') return '(program: V8/native outside JS)';
  if (!url) return '(native / builtins)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return `gateway:${url.slice(dist + 6).split('/').slice(0, 2).join('/')}`;
  return url;
}

export function newestProfile(directory) {
  const files = readdirSync(directory).filter((name) => name.endsWith('.cpuprofile')).sort();
  return files.length ? `${directory}/${files[files.length - 1]}` : null;
}
