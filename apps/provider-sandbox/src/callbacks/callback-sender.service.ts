import { Inject, Injectable, Logger } from '@nestjs/common';
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
 */
@Injectable()
export class CallbackSender {
  private readonly logger = new Logger(CallbackSender.name);

  constructor(
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
    private readonly scheduler: SandboxScheduler,
  ) {}

  send(callbackUrl: string, callback: StatusCallback): void {
    const signal = AbortSignal.any([AbortSignal.timeout(this.options.callbackTimeoutMs), this.scheduler.shutdownSignal]);
    fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(callback),
      signal,
    })
      .then((response) => response.body?.cancel())
      .catch(() => {
        this.logger.warn(`callback for transaction ${callback.transaction_id} (${callback.status}) was not delivered`);
      });
  }
}
