import { Injectable } from '@nestjs/common';

/** Purchase creates are keyed by our external id, payout submissions by merchant reference. */
export type SubmissionKind = 'external_id' | 'merchant_reference';

export interface SubmissionTally {
  /** Every create or submit call received for the id, accepted, duplicate or failed. */
  count: number;
  /** Of those, calls for an id the provider already held (409 for purchases, a replay for payouts). */
  duplicate_attempts: number;
}

/**
 * Counts the money-moving calls the sandbox receives, so tests and the invariant checker can
 * prove that the gateways never submit the same money movement twice.
 */
@Injectable()
export class SubmissionWitness {
  private readonly tallies: Record<SubmissionKind, Map<string, SubmissionTally>> = {
    external_id: new Map(),
    merchant_reference: new Map(),
  };

  record(kind: SubmissionKind, id: string, duplicate: boolean): void {
    const tally = this.tallies[kind].get(id) ?? { count: 0, duplicate_attempts: 0 };
    tally.count += 1;
    if (duplicate) tally.duplicate_attempts += 1;
    this.tallies[kind].set(id, tally);
  }

  tallyOf(kind: SubmissionKind, id: string): SubmissionTally {
    return { ...(this.tallies[kind].get(id) ?? { count: 0, duplicate_attempts: 0 }) };
  }

  repeated(kind: SubmissionKind): Array<SubmissionTally & { id: string }> {
    return [...this.tallies[kind]]
      .filter(([, tally]) => tally.count > 1)
      .map(([id, tally]) => ({ id, ...tally }));
  }
}
