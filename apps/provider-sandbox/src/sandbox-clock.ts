/**
 * Where the sandbox reads "now" for timestamps and rate windows (SMS resend cooldown).
 * Tests pass a ManualSandboxClock to move time without waiting; delays that drive status
 * changes still use real timers, kept short through SandboxOptions.
 */
export interface SandboxClock {
  now(): Date;
}

export const systemSandboxClock: SandboxClock = { now: () => new Date() };

export class ManualSandboxClock implements SandboxClock {
  private currentMs: number;

  constructor(start: Date = new Date('2026-01-15T08:00:00.000Z')) {
    this.currentMs = start.getTime();
  }

  now(): Date {
    return new Date(this.currentMs);
  }

  advance(milliseconds: number): void {
    if (!Number.isFinite(milliseconds) || milliseconds < 0) throw new RangeError('a clock only moves forward');
    this.currentMs += milliseconds;
  }
}
