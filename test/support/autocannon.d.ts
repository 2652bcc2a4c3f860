// The subset of autocannon's API the tests use (the package ships no types of its own).
declare module 'autocannon' {
  interface AutocannonOptions {
    url: string;
    headers?: Record<string, string>;
    connections?: number;
    overallRate?: number;
    duration?: number;
  }
  interface AutocannonResult {
    requests: { total: number; average: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  /** The running load: awaitable for its result, and stoppable before its duration ends. */
  interface AutocannonInstance extends PromiseLike<AutocannonResult> {
    stop(): void;
  }
  export default function autocannon(options: AutocannonOptions): AutocannonInstance;
}
