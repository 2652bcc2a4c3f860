import { Inject, Injectable, Logger } from '@nestjs/common';
import { request } from 'undici';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../sandbox-options.js';
import { SandboxScheduler } from '../sandbox-scheduler.js';

export interface StatusCallback {
  transaction_id: number;
  external_id: string;
  status: string;
}

/**
 * Posts status callbacks fire-and-forget, as providers do: no retry, a short timeout, and the
 * result never changes the transaction. The URL carries the receiver's secret, so it is never logged.
 *
 * Sent with undici's request on its global keep-alive pool, as our own provider clients send
 * theirs, rather than fetch: the sandbox shares the benchmark machine with the system it stands in
 * for, and fetch's streams cost several times the CPU for one small POST.
 */
@Injectable()
export class CallbackSender {
  private readonly logger = new Logger(CallbackSender.name);

  constructor(
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
    private readonly scheduler: SandboxScheduler,
  ) {}

  send(callbackUrl: string, callback: StatusCallback): void {
    // The timeout is undici's own (no timer and signal per callback): for the answer's headers, and for its body.
    const timeoutMs = this.options.callbackTimeoutMs;
    const options = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: this.scheduler.shutdownSignal };
    // Started inside the chain: undici throws at once, not in its promise, on a URL it cannot parse.
    Promise.resolve()
      .then(() => request(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(callback), ...options }))
      // The answer is not read, only drained, so the connection goes back to the pool.
      .then((response) => response.body.dump())
      .catch(() => {
        this.logger.warn(`callback for transaction ${callback.transaction_id} (${callback.status}) was not delivered`);
      });
  }
}
