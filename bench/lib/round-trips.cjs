/**
 * Counts the round trips a process makes: every PostgreSQL statement (by its text, parameters
 * left out) and every Redis command (by name; a Lua script by its BullMQ command name). Loaded
 * with `node --require bench/lib/round-trips.cjs`; writes the counts as JSON to
 * $ROUND_TRIPS_FILE when the process exits. Bench-only instrumentation: the deployed apps never
 * load it, and a profile of an instrumented run is not a measurement of speed.
 */
'use strict';
const { writeFileSync } = require('node:fs');

const output = process.env.ROUND_TRIPS_FILE;
const statements = new Map();
const commands = new Map();
const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
const normalise = (text) => text.replace(/\s+/g, ' ').trim().slice(0, 160);

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

process.on('exit', () => {
  if (!output) return;
  const sorted = (map) => Object.fromEntries([...map.entries()].sort((a, b) => b[1] - a[1]));
  writeFileSync(output, JSON.stringify({ statements: sorted(statements), redis_commands: sorted(commands) }, null, 1));
});
