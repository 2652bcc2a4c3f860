/**
 * Gathers the items that arrive in one turn of the event loop and hands each group of them to
 * `flush` together, for one statement instead of one each. The worker's claim rounds verify a
 * batch of purchases at once, and a provider calls back for a round of creates together, so under
 * load many arrive in the same turn; each statement saved is a round trip, an executor start and a
 * commit of PostgreSQL's. Nothing waits for a timer: an item is sent at the end of the turn it
 * arrived in, so under light load every group is a group of one.
 *
 * `flush` answers one result per item, in the items' order (a promise of one settles that item
 * alone); if it throws, every item of the group fails with its error.
 */
export class TurnBatcher<I, O> {
  private pending = new Map<string, { input: I; resolve: (output: O | PromiseLike<O>) => void; reject: (error: unknown) => void }[]>();
  private scheduled = false;

  constructor(private readonly flush: (inputs: readonly I[]) => Promise<readonly (O | PromiseLike<O>)[]>) {}

  /** `input`'s result, sent with the other items of `group` that arrive in this turn. */
  add(input: I, group = ''): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let items = this.pending.get(group);
      if (!items) this.pending.set(group, (items = []));
      items.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flushAll());
      }
    });
  }

  /** Whether an item of `group` already waits in this turn. */
  has(group: string, matches: (input: I) => boolean): boolean {
    return this.pending.get(group)?.some((item) => matches(item.input)) ?? false;
  }

  private flushAll(): void {
    const groups = [...this.pending.values()];
    this.pending = new Map();
    this.scheduled = false;
    for (const items of groups) {
      // A flush that throws at once fails its group like one that rejects.
      Promise.resolve()
        .then(() => this.flush(items.map((item) => item.input)))
        .then(
          (outputs) => items.forEach((item, index) => item.resolve(outputs[index])),
          (error: unknown) => items.forEach((item) => item.reject(error)),
        );
    }
  }
}
