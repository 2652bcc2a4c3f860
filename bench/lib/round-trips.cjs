/**
 * Counts the round trips a process makes: every PostgreSQL statement (by its text, parameters
 * left out), every Redis command (by name; a Lua script by its BullMQ command name), every HTTP
 * request it sends through undici (the provider clients; method and path with ids left out) and
 * every HTTP request its server receives (the provider's callbacks, the vendors' requests).
 * Loaded with `node --require bench/lib/round-trips.cjs`; writes the counts as JSON to
 * $ROUND_TRIPS_FILE when the process exits, and on SIGUSR2 (a snapshot, numbered, so the harness
 * can take the difference between two). Bench-only instrumentation: the deployed apps never
 * load it, and a profile of an instrumented run is not a measurement of speed.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const diagnostics = require('node:diagnostics_channel');

const output = process.env.ROUND_TRIPS_FILE;
const statements = new Map();
const commands = new Map();
const httpOut = new Map();
const httpIn = new Map();
let snapshots = 0;
const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
const normalise = (text) => text.replace(/\s+/g, ' ').trim().slice(0, 160);
// Ids (uuids, numbers) out of a path, and the query string off it, so one route is one key.
const route = (path) =>
  String(path ?? '')
    .split('?')[0]
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ':id')
    .replace(/\/\d+(?=\/|$)/g, '/:n')
    .replace(/\/callback\/[^/]+/, '/callback/:token');

try {
  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') bump(statements, normalise(text));
    return query.call(this, config, ...rest);
  };
} catch {
  // no pg in this process
}

try {
  const Redis = require('ioredis');
  const RedisClass = Redis.default ?? Redis;
  const sendCommand = RedisClass.prototype.sendCommand;
  RedisClass.prototype.sendCommand = function countedCommand(command, ...rest) {
    // BullMQ's Lua scripts go out as EVALSHA; their names are on the command's args only as a SHA.
    bump(commands, command?.name === 'evalsha' ? `evalsha:${String(command.args?.[0]).slice(0, 8)}` : command?.name);
    return sendCommand.call(this, command, ...rest);
  };
  // A pipeline is one round trip whatever it holds; its commands do not pass sendCommand.
  const Pipeline = require('ioredis/built/Pipeline.js').default;
  const exec = Pipeline.prototype.exec;
  Pipeline.prototype.exec = function countedExec(...rest) {
    bump(commands, 'pipeline/multi');
    return exec.call(this, ...rest);
  };
} catch {
  // no ioredis in this process
}

// undici (the npm package and the one inside Node's fetch) publishes every request it creates.
diagnostics.subscribe('undici:request:create', ({ request }) => bump(httpOut, `${request.method} ${route(request.path)}`));
diagnostics.subscribe('http.server.request.start', ({ request }) => bump(httpIn, `${request.method} ${route(request.url)}`));

const sorted = (map) => Object.fromEntries([...map.entries()].sort((a, b) => b[1] - a[1]));
const write = () => {
  if (!output) return;
  writeFileSync(
    output,
    JSON.stringify({ snapshot: snapshots, statements: sorted(statements), redis_commands: sorted(commands), http_out: sorted(httpOut), http_in: sorted(httpIn) }, null, 1),
  );
};
process.on('SIGUSR2', () => {
  snapshots += 1;
  write();
});
process.on('exit', write);
