/** Wait before attempt `nextAttempt` (2, 3, ...): base doubled per retry, capped. */
export function retryDelayMs(nextAttempt: number, baseMs: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, baseMs * 2 ** Math.max(0, nextAttempt - 2));
}

/** Time from the first attempt to the last one, for the documented "at least 72 hours". */
export function retrySpanMs(maxAttempts: number, baseMs: number, maxDelayMs: number): number {
  let total = 0;
  for (let attempt = 2; attempt <= maxAttempts; attempt++) total += retryDelayMs(attempt, baseMs, maxDelayMs);
  return total;
}
