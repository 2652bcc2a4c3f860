import { DomainError } from '#common';

export class PricingUnpublishedError extends DomainError {
  constructor() {
    super('PRICING_UNPUBLISHED', 'No pricing version has been published');
  }
}
