import { Controller, Get, Query } from '@nestjs/common';
import { badRequest } from '../sandbox-errors.js';
import { SubmissionWitness } from './submission-witness.service.js';

/** Sandbox-only endpoints (no real provider has them); still behind the API key. */
@Controller('__sandbox/submissions')
export class SubmissionWitnessController {
  constructor(private readonly witness: SubmissionWitness) {}

  @Get()
  tally(@Query('external_id') externalId?: string, @Query('merchant_reference') merchantReference?: string) {
    if ((externalId === undefined) === (merchantReference === undefined)) {
      throw badRequest('INVALID_QUERY', 'give exactly one of external_id or merchant_reference');
    }
    return externalId !== undefined
      ? { external_id: externalId, ...this.witness.tallyOf('external_id', externalId) }
      : { merchant_reference: merchantReference, ...this.witness.tallyOf('merchant_reference', merchantReference!) };
  }

  @Get('summary')
  summary() {
    return {
      external_ids: this.witness.repeated('external_id').map(({ id, ...tally }) => ({ external_id: id, ...tally })),
      merchant_references: this.witness
        .repeated('merchant_reference')
        .map(({ id, ...tally }) => ({ merchant_reference: id, ...tally })),
    };
  }
}
