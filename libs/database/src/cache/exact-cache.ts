import type { ChangeNotifications } from '../persistence/change-notifications.js';

export interface ExactCacheOptions {
  /** The notification channels whose changes empty the cache (see the change-notifications migration). */
  channels: readonly string[];
  /** Entries kept at most; when full the oldest entry goes. */
  maxEntries: number;
}

/**
 * An in-process cache that is never stale: it is emptied on every committed change announced on
 * its channels, and it is only used while the LISTEN connection is up (otherwise every read goes
 * to the loader, and the cache starts empty when the connection is back).
 *
 * A read that started before a change and finishes after its notification must not be stored
 * (it may hold the old value): each load remembers the generation it started in, and the result
 * is kept only if no change, disconnect or reconnect happened meanwhile.
 *
 * A hit waits for ChangeNotifications.sync (one round trip on the listening connection, shared by
 * the reads arriving meanwhile), so a change committed before the read began is always seen: the
 * cache is exact, not merely quick to follow.
 */
export class ExactCache<V> {
  private readonly entries = new Map<string, V>();
  private live = false;
  private generation = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly notifications: ChangeNotifications,
    private readonly options: ExactCacheOptions,
  ) {
    for (const channel of options.channels) {
      notifications.subscribe(channel, {
        changed: () => this.invalidate(),
        listening: (live) => {
          // Whatever was cached before a disconnect may have missed a change: dropped both ways.
          this.invalidate();
          this.live = live;
        },
      });
    }
  }

  /**
   * The cached value of `key`, or what `load` reads (kept when it may be). `undefined` from the
   * loader is not cached: an unknown key stays a read, so unknown keys cannot fill the cache.
   */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.live && this.entries.has(key)) {
      // Every change committed before this read is handled first (emptying the cache if needed).
      if ((await this.notifications.sync()) && this.live) {
        const cached = this.entries.get(key);
        if (cached !== undefined) {
          this.hits++;
          return cached;
        }
      }
    }
    this.misses++;
    const startedIn = this.generation;
    const value = await load();
    if (value !== undefined && this.live && startedIn === this.generation) {
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Forgets one entry (e.g. a token found expired). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** For tests and metrics: whether entries are served, and the counts since start. */
  get stats(): { live: boolean; size: number; hits: number; misses: number } {
    return { live: this.live, size: this.entries.size, hits: this.hits, misses: this.misses };
  }

  private invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}
