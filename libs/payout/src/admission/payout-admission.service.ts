import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { FieldEncryption, NotFoundError } from '#common';
import { VendorService } from '#auth';
import { methodPoliciesOf, PayoutMethodsService } from '../methods/payout-methods.service.js';
import { PayoutLedgerService } from '../ledger/payout-ledger.service.js';
import { admissionErrorOf, admitPayout, type AdmissionProblem, type AdmittedPayout } from '../model/payout-admission-rules.js';
import { ReferenceConflictError } from '../model/payout-errors.js';
import { PayoutReadiness } from '../model/payout-readiness.js';
import { holdOf, merchantReferenceOf, recipientContext, type PayoutRecord } from '../model/payout-record.js';
import { storedMetadataOf, storedRecipientOf, type PayoutRequestInput } from '../model/payout-request.js';
import type { NewPayout } from '../model/payout-record.js';
import { PayoutRepository, type PayoutAdmissionSnapshot } from '../persistence/payout.repository.js';

const USED_REFERENCE = 'reference was already used by another payout';

/** Where a new payout starts: a single payout is submitted at once, a batch item waits for its job. */
export type PayoutStart = Pick<NewPayout, 'batchId' | 'batchPosition' | 'submissionStartedAt' | 'nextPollAt'> & {
  statusReason: 'submitting' | 'queued';
};

/**
 * The admission steps single payouts and batches share, written once: the vendor may move money
 * (readiness), each request passes the vendor's method rules, a reused reference answers the
 * stored result or REFERENCE_CONFLICT, and the new rows carry the encrypted recipient. The
 * callers keep their own statements (a batch inserts and reserves all its items at once, the
 * holds last in its transaction).
 */
@Injectable()
export class PayoutAdmissionService {
  constructor(
    private readonly methods: PayoutMethodsService,
    private readonly encryption: FieldEncryption,
    private readonly vendors: VendorService,
    private readonly readiness: PayoutReadiness,
    private readonly payouts: PayoutRepository,
    private readonly ledger: PayoutLedgerService,
  ) {}

  /**
   * A single payout's admission reads in one statement: readiness, method policies and the
   * payout already made with the reference (which the caller replays before admitting anything).
   */
  async snapshotFor(vendorId: string, reference: string): Promise<PayoutAdmissionSnapshot> {
    const snapshot = await this.payouts.admissionSnapshot(vendorId, reference);
    if (!snapshot) throw new NotFoundError('vendor');
    return snapshot;
  }

  /** One payout request admitted on what snapshotFor read, or its problems as one error. */
  admitFromSnapshot(snapshot: PayoutAdmissionSnapshot, request: PayoutRequestInput): AdmittedPayout {
    this.readiness.assertCanMovePayouts(snapshot.vendor);
    const { admitted, problems } = admitPayout(request, methodPoliciesOf(snapshot.vendorMethods, snapshot.accountFeeCents));
    if (!admitted) throw admissionErrorOf(problems);
    return admitted;
  }

  /**
   * A single payout, its hold, its reserve entry and first status poll in one statement that
   * commits on its own (PayoutRepository.admitSingle). INSUFFICIENT_FUNDS when the balance does
   * not cover the hold (ACCOUNT_IN_DEBT while the account is in debt); null when a concurrent request committed the reference first (the
   * caller replays that payout).
   */
  async insertReserved(row: NewPayout): Promise<PayoutRecord | null> {
    let written: { admitted: PayoutRecord | null; referenceTaken: boolean };
    try {
      written = await this.payouts.admitSingle(row, holdOf(row));
    } catch (error) {
      const driverError = error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : undefined;
      if (driverError?.code === '23505' && driverError.constraint === 'payouts_vendor_reference_key') return null;
      throw error;
    }
    if (written.referenceTaken) return null;
    if (!written.admitted) throw await this.ledger.refusal(row.vendorId);
    return written.admitted;
  }

  /**
   * Every item admitted, or every problem of every item as one error: the item's own rules,
   * references repeated within the request, and references already used (one set-based read for
   * the whole batch).
   */
  async admitAll(vendorId: string, items: readonly PayoutRequestInput[]): Promise<AdmittedPayout[]> {
    // Readiness, then the vendor's method policies.
    this.readiness.assertCanMovePayouts(await this.vendors.get(vendorId));
    const policies = await this.methods.policiesFor(vendorId);
    const problems: AdmissionProblem[] = [];
    const admitted: AdmittedPayout[] = [];
    const firstIndexOf = new Map<string, number>();
    items.forEach((item, index) => {
      const result = admitPayout(item, policies, `payouts.${index}.`);
      problems.push(...result.problems);
      if (result.admitted) admitted.push(result.admitted);
      const first = firstIndexOf.get(item.reference);
      if (first !== undefined) {
        problems.push({ field: `payouts.${index}.reference`, message: `reference duplicates payouts.${first}.reference`, kind: 'validation' });
      } else {
        firstIndexOf.set(item.reference, index);
      }
    });
    for (const field of Object.keys(await this.usedReferenceErrors(vendorId, items))) {
      problems.push({ field, message: USED_REFERENCE, kind: 'validation' });
    }
    if (problems.length > 0) throw admissionErrorOf(problems);
    return admitted;
  }

  /** `payouts.N.reference` for each item whose reference the vendor already used. */
  async usedReferenceErrors(vendorId: string, items: readonly PayoutRequestInput[]): Promise<Record<string, string[]>> {
    const used = await this.payouts.usedReferences(
      vendorId,
      items.map((item) => item.reference),
    );
    const errors: Record<string, string[]> = {};
    items.forEach((item, index) => {
      if (used.has(item.reference)) errors[`payouts.${index}.reference`] = [USED_REFERENCE];
    });
    return errors;
  }

  /** A reused reference replays only the same request. */
  assertSameRequest(storedFingerprint: string, fingerprint: string): void {
    if (storedFingerprint !== fingerprint) throw new ReferenceConflictError();
  }

  /** The row of an admitted payout, with a new id, its merchant reference and the recipient encrypted for that id. */
  newPayout(vendorId: string, request: PayoutRequestInput, admitted: AdmittedPayout, requestFingerprint: string, start: PayoutStart): NewPayout {
    const id = randomUUID();
    return {
      id,
      vendorId,
      reference: request.reference,
      method: admitted.method,
      amountCents: admitted.amountCents,
      feeCents: admitted.feeCents,
      merchantReference: merchantReferenceOf(id),
      recipientEncrypted: this.encryption.encryptJson(storedRecipientOf(request.recipient), recipientContext(id)),
      metadata: storedMetadataOf(request.metadata),
      requestFingerprint,
      ...start,
    };
  }
}
