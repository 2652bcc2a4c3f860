#!/usr/bin/env node
/**
 * Regenerates docs/BENCHMARKS.md from a result file without rerunning the benchmark (after
 * editing bench/report-notes.md): `node bench/report.mjs [bench/results/<date>.json] [--compare <current>.json <previous>.json]`,
 * default the newest; `--compare` adds two runs of the same code (e.g. on two Node.js versions) side by side.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeReport } from './lib/report.mjs';

const args = process.argv.slice(2);
const compareAt = args.indexOf('--compare');
const compared = compareAt >= 0 ? args.splice(compareAt, 3).slice(1) : [];
const file = args[0] ?? `bench/results/${readdirSync('bench/results').filter((name) => name.endsWith('.json')).sort().pop()}`;
const read = (path) => ({ results: JSON.parse(readFileSync(path, 'utf8')), file: path });
const comparison = compared.length === 2 ? { current: read(compared[0]), previous: read(compared[1]) } : undefined;
writeReport(JSON.parse(readFileSync(file, 'utf8')), file, 'docs/BENCHMARKS.md', comparison);
console.error(`docs/BENCHMARKS.md regenerated from ${file}`);
