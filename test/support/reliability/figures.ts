import { appendFileSync } from 'node:fs';

/**
 * The figures docs/RELIABILITY.md reports: each suite prints one `reliability-figures:` JSON
 * line, and appends it to RELIABILITY_FIGURES_FILE when that is set (scripts collect them).
 */
export function reportFigures(suite: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ suite, at: new Date().toISOString(), ...figures });
  process.stdout.write(`reliability-figures: ${line}\n`);
  const file = process.env.RELIABILITY_FIGURES_FILE;
  if (file) appendFileSync(file, `${line}\n`);
}

/** A whole number from the environment, for the long versions of the suites. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got ${raw}`);
  return value;
}

/** A small seeded generator, so a failing random schedule can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
