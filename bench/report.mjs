#!/usr/bin/env node
/**
 * Regenerates docs/BENCHMARKS.md from a result file without rerunning the benchmark (after
 * editing bench/report-notes.md): `node bench/report.mjs [bench/results/<date>.json] [--compare <other>.json]`,
 * default the newest; `--compare` adds the figures of another run (the same code on another Node.js) side by side.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeReport } from './lib/report.mjs';

const args = process.argv.slice(2);
const compareAt = args.indexOf('--compare');
const compareFile = compareAt >= 0 ? args.splice(compareAt, 2)[1] : undefined;
const file = args[0] ?? `bench/results/${readdirSync('bench/results').filter((name) => name.endsWith('.json')).sort().pop()}`;
const comparison = compareFile ? { results: JSON.parse(readFileSync(compareFile, 'utf8')), file: compareFile } : undefined;
writeReport(JSON.parse(readFileSync(file, 'utf8')), file, 'docs/BENCHMARKS.md', comparison);
console.error(`docs/BENCHMARKS.md regenerated from ${file}`);
