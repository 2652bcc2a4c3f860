import { Injectable, Logger } from '@nestjs/common';
import { MetricsService } from '#observability';
import { ProviderError, PurchaseProviderClient } from '#providers';
import type { ProviderObservation } from '../outcomes/purchase-outcome.types.js';

/** One verified GET at the provider: by its own id once known, else by our id as external id. */
@Injectable()
export class PurchaseProviderLookup {
  private readonly logger = new Logger(PurchaseProviderLookup.name);

  constructor(
    private readonly provider: PurchaseProviderClient,
    private readonly metrics: MetricsService,
  ) {}

  async observe(transactionId: string, providerTransactionId: string | null): Promise<ProviderObservation> {
    const observation = await this.lookUp(transactionId, providerTransactionId);
    this.metrics.purchaseLookups.inc({ result: observation.kind });
    return observation;
  }

  private async lookUp(transactionId: string, providerTransactionId: string | null): Promise<ProviderObservation> {
    try {
      const result =
        providerTransactionId !== null
          ? await this.provider.getTransaction(Number(providerTransactionId))
          : await this.provider.findTransactionByExternalId(transactionId);
      if (result.outcome === 'not_found') return { kind: 'not_found' };
      if (result.externalId !== transactionId) {
        // Not evidence about our purchase; the recorder raises it for staff rather than asking again for ever.
        this.logger.error({ transactionId, providerTransactionId }, 'Provider answered with another external id');
        return { kind: 'mismatched', providerTransactionId: String(result.providerTransactionId), answeredExternalId: result.externalId, providerStatus: result.providerStatus };
      }
      return { kind: 'found', transaction: result };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      this.logger.warn({ transactionId, code: error.code, err: error.message }, 'Provider lookup failed');
      return { kind: 'unavailable', reason: error.code };
    }
  }
}
