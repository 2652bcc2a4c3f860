import type { ApiEnvelopeFormat } from './api-envelope.js';

/**
 * A controller result that a read cache hands out unchanged to many requests (one per cache
 * entry, e.g. CatalogueReadCache in #purchase). The envelope interceptor sends its success body
 * as text: serialised on the first answer and the same text on every later one, so a cache hit
 * builds no envelope object and runs no JSON.stringify (on GET /products that was a fifth of the
 * gateway's CPU, and the garbage of both another fifth). A new entry after an invalidation is a
 * new CachedResult, serialised afresh.
 *
 * The data must not be changed once it is handed out: the text would no longer match it.
 */
export class CachedResult<T> {
  private serialised?: { format: ApiEnvelopeFormat; body: string };

  constructor(readonly data: T) {}

  /**
   * The success body of `data` in the service's envelope as JSON text, exactly what `res.json`
   * sends for `format.success(data)` (Express's default JSON settings: no replacer, spaces or
   * escaping, which no app changes).
   */
  successBody(format: ApiEnvelopeFormat): string {
    // Keyed by the format, so a result can never carry one service's envelope into another's.
    if (this.serialised?.format !== format) this.serialised = { format, body: JSON.stringify(format.success(this.data ?? null)) };
    return this.serialised.body;
  }
}
