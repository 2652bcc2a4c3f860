import { Injectable } from '@nestjs/common';
import { NotFoundError, UUID_PATTERN } from '#common';
import { PayoutRepository, PayoutReviewService, type PayoutContact, type PayoutStaffItem } from '#payout';
import { PurchaseReviewService, TransactionsRepository, type PurchaseStaffEvent, type PurchaseStaffItem } from '#purchase';
import type { StaffActor } from '../model/staff.js';
import { ManualResolutionRepository, type ManualResolution, type ReviewDomain } from '../persistence/manual-resolution.repository.js';
import { StaffAuditLog } from '../persistence/staff-audit.repository.js';

/** How many items a queue page shows (oldest first); the metrics give the full count. */
export const QUEUE_PAGE_SIZE = 200;

export interface QueueDepths {
  purchases: { count: number; oldestAgeSeconds: number };
  payouts: { count: number; oldestAgeSeconds: number };
}

/**
 * The two review queues as staff see them, each item with its provider history, and "check the
 * provider now": a fresh verified lookup queued for the worker through the domain's own review
 * service, so the item moves exactly as the worker would move it. Reads go through the domains'
 * repositories.
 */
@Injectable()
export class ReviewQueues {
  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly payouts: PayoutRepository,
    private readonly purchaseReview: PurchaseReviewService,
    private readonly payoutReview: PayoutReviewService,
    private readonly resolutions: ManualResolutionRepository,
    private readonly audit: StaffAuditLog,
  ) {}

  async depths(): Promise<QueueDepths> {
    const [purchases, payouts] = await Promise.all([this.transactions.reviewDepth(), this.payouts.reviewDepth()]);
    return { purchases, payouts };
  }

  purchases(): Promise<PurchaseStaffItem[]> {
    return this.transactions.reviewQueue(QUEUE_PAGE_SIZE);
  }

  payoutsInReview(): Promise<PayoutStaffItem[]> {
    return this.payouts.reviewQueue(QUEUE_PAGE_SIZE);
  }

  async purchase(id: string): Promise<{ item: PurchaseStaffItem; history: PurchaseStaffEvent[]; resolution: ManualResolution | null }> {
    const item = UUID_PATTERN.test(id) ? await this.transactions.staffItem(id) : undefined;
    if (!item) throw new NotFoundError('purchase');
    const [history, resolution] = await Promise.all([this.transactions.staffHistory(id), this.resolutions.forItem('purchase', id)]);
    return { item, history, resolution };
  }

  async payout(id: string): Promise<{ item: PayoutStaffItem; contacts: PayoutContact[]; resolution: ManualResolution | null }> {
    const item = UUID_PATTERN.test(id) ? await this.payouts.staffItem(id) : null;
    if (!item) throw new NotFoundError('payout');
    const [contacts, resolution] = await Promise.all([this.payouts.contacts(id), this.resolutions.forItem('payout', id)]);
    return { item, contacts, resolution };
  }

  /**
   * "Check the provider now": a purchase's manual verification (the worker's verification job,
   * reason `manual`), or a payout's next status poll brought forward to now (the worker's poll chain).
   */
  async check(domain: ReviewDomain, id: string, actor: StaffActor): Promise<{ scheduled: boolean; status: string }> {
    const vendorId = domain === 'purchase' ? (await this.purchase(id)).item.vendor_id : (await this.payout(id)).item.vendorId;
    const { scheduled, status } = await (domain === 'purchase' ? this.purchaseReview.requestVerification(id) : this.payoutReview.requestLookup(id));
    await this.audit.record({ actor, action: `${domain}.check_requested`, subjectType: domain, subjectId: id, vendorId, details: { status, scheduled } });
    return { scheduled, status };
  }
}
