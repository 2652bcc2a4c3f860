/**
 * Waits for `work` at most `ms`: true when it settled (resolved or rejected) in time, false when
 * it did not, in which case it is left running. For shutdown steps that must not hold a process
 * past its grace whatever a dependency does (a client stuck reconnecting never settles its close).
 */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true, () => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
