#!/usr/bin/env node
/**
 * Regenerates docs/BENCHMARKS.md from a result file without rerunning the benchmark (after
 * editing bench/report-notes.md): `node bench/report.mjs [bench/results/<date>.json]`, default the newest.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeReport } from './lib/report.mjs';

const file = process.argv[2] ?? `bench/results/${readdirSync('bench/results').filter((name) => name.endsWith('.json')).sort().pop()}`;
writeReport(JSON.parse(readFileSync(file, 'utf8')), file, 'docs/BENCHMARKS.md');
console.error(`docs/BENCHMARKS.md regenerated from ${file}`);
