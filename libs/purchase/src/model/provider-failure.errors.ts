import { DomainError } from '#common';
import { ProviderError, ProviderNotConfiguredError, ProviderRejectedError, ProviderTimeoutError } from '#providers';

export class ProviderNotConfiguredForPurchasesError extends DomainError {
  constructor() {
    super('PROVIDER_NOT_CONFIGURED', 'The purchase provider is not configured');
  }
}

export class ProviderHttpFailureError extends DomainError {
  constructor() {
    super('PROVIDER_HTTP_ERROR', 'The provider could not be reached or answered with an error');
  }
}

export class ProviderOutcomeUnknownError extends DomainError {
  constructor() {
    super('PROVIDER_OUTCOME_UNKNOWN', 'The provider did not answer in time');
  }
}

/**
 * How a failed provider read reaches a vendor: never the provider's own message, which may
 * carry internals. Anything that is not a provider failure is rethrown as is.
 */
export function vendorErrorForProviderFailure(error: unknown): never {
  if (error instanceof ProviderNotConfiguredError) throw new ProviderNotConfiguredForPurchasesError();
  if (error instanceof ProviderTimeoutError) throw new ProviderOutcomeUnknownError();
  if (error instanceof ProviderRejectedError && error.status >= 400 && error.status < 500 && error.status !== 429) {
    throw new DomainError('VALIDATION_FAILED', 'The provider refused the request', {}, {
      request: [`the provider refused the request${error.providerCode ? ` (${error.providerCode})` : ''}`],
    });
  }
  if (error instanceof ProviderError) throw new ProviderHttpFailureError();
  throw error;
}
