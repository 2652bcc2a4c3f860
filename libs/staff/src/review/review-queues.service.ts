import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { PayoutReviewService, type PayoutContact, type PayoutStaffItem } from '#payout';
import { PurchaseReviewService, type PurchaseStaffEvent, type PurchaseStaffItem } from '#purchase';
import type { Decider } from '../four-eyes/four-eyes.service.js';
import { requireReason } from '../model/proposals.js';
import type { StaffActor } from '../model/staff.js';
import { ManualResolutionRepository, type ManualResolution, type ReviewDomain } from '../persistence/manual-resolution.repository.js';
import { ReviewItemWorkRepository, type ItemOwner } from '../persistence/review-item-work.repository.js';
import { StaffAuditLog } from '../persistence/staff-audit.repository.js';
import { StaffAccounts } from '../staff-accounts.service.js';
import { ItemWork, type ItemNote, type WorkedItem } from '../work/item-work.js';

/** How many items a queue page shows (oldest first); the metrics give the full count. */
export const QUEUE_PAGE_SIZE = 200;

/** A review item as its owner works it: whether it is still in its queue, and who owns it. */
interface ReviewWorkItem extends WorkedItem {
  inQueue: boolean;
}

/** The statuses in which an item is in its review queue. */
const IN_QUEUE: Record<ReviewDomain, string> = { purchase: 'review', payout: 'needs_review' };

/** The resolutions a person may propose for each kind of item. */
export const REVIEW_OUTCOMES: Record<ReviewDomain, readonly string[]> = { purchase: ['completed', 'failed'], payout: ['paid', 'failed'] };

export interface QueueDepths {
  purchases: { count: number; oldestAgeSeconds: number };
  payouts: { count: number; oldestAgeSeconds: number };
}

/**
 * The two review queues as staff see them, each item with its provider history, and "check the
 * provider now": a fresh verified lookup queued for the worker through the domain's own review
 * service, so the item moves exactly as the worker would move it. Reads go through the domains'
 * repositories. Each item is worked as an exception is (ItemWork): one owner claims it, notes are
 * appended, and only its owner proposes a resolution (docs/BACK-OFFICE.md, "Owner and notes").
 */
@Injectable()
export class ReviewQueues {
  private readonly work: Record<ReviewDomain, ItemWork<ReviewWorkItem>>;

  constructor(
    private readonly purchaseReview: PurchaseReviewService,
    private readonly payoutReview: PayoutReviewService,
    private readonly resolutions: ManualResolutionRepository,
    private readonly audit: StaffAuditLog,
    private readonly dataSource: DataSource,
    private readonly accounts: StaffAccounts,
    private readonly claims: ReviewItemWorkRepository,
  ) {
    const store = (domain: ReviewDomain) =>
      new ItemWork<ReviewWorkItem>(this.dataSource, this.audit, this.accounts, {
        subjectType: domain,
        actionPrefix: domain,
        noun: `a ${domain}`,
        load: async (manager, id) => {
          const item = domain === 'purchase' ? await this.purchaseReview.item(id) : await this.payoutReview.item(id);
          if (!item) return null;
          const owner = await this.claims.owner(domain, id, manager);
          const [vendorId, status] = [item.vendorId, item.status];
          return { id, vendorId, ownerStaffId: owner?.ownerStaffId ?? null, ownerEmail: owner?.ownerEmail ?? null, inQueue: status === IN_QUEUE[domain] };
        },
        closed: (item) => (item.inQueue ? null : `The ${domain} is no longer in review.`),
        setOwner: (manager, item, owner, expected) => this.claims.setOwner(manager, domain, item.id, owner, expected),
        addNote: (manager, item, author, body) => this.claims.addNote(manager, domain, item.id, author, body),
      });
    this.work = { purchase: store('purchase'), payout: store('payout') };
  }

  async depths(): Promise<QueueDepths> {
    const [purchases, payouts] = await Promise.all([this.purchaseReview.depth(), this.payoutReview.reviewDepth()]);
    return { purchases, payouts };
  }

  purchases(): Promise<PurchaseStaffItem[]> {
    return this.purchaseReview.queue(QUEUE_PAGE_SIZE);
  }

  payoutsInReview(): Promise<PayoutStaffItem[]> {
    return this.payoutReview.reviewQueue(QUEUE_PAGE_SIZE);
  }

  async purchase(id: string): Promise<{ item: PurchaseStaffItem; history: PurchaseStaffEvent[]; resolution: ManualResolution | null }> {
    const item = UUID_PATTERN.test(id) ? await this.purchaseReview.item(id) : undefined;
    if (!item) throw new NotFoundError('purchase');
    const [history, resolution] = await Promise.all([this.purchaseReview.history(id), this.resolutions.forItem('purchase', id)]);
    return { item, history, resolution };
  }

  async payout(id: string): Promise<{ item: PayoutStaffItem; contacts: PayoutContact[]; resolution: ManualResolution | null }> {
    const item = UUID_PATTERN.test(id) ? await this.payoutReview.item(id) : null;
    if (!item) throw new NotFoundError('payout');
    const [contacts, resolution] = await Promise.all([this.payoutReview.contacts(id), this.resolutions.forItem('payout', id)]);
    return { item, contacts, resolution };
  }

  /**
   * "Check the provider now": a purchase's manual verification (the worker's verification job,
   * reason `manual`), or a payout's next status poll brought forward to now (the worker's poll chain).
   */
  async check(domain: ReviewDomain, id: string, actor: StaffActor): Promise<{ scheduled: boolean; status: string }> {
    const vendorId = domain === 'purchase' ? (await this.purchase(id)).item.vendorId : (await this.payout(id)).item.vendorId;
    const { scheduled, status } = await (domain === 'purchase' ? this.purchaseReview.requestVerification(id) : this.payoutReview.requestLookup(id));
    await this.audit.record({ actor, action: `${domain}.check_requested`, subjectType: domain, subjectId: id, vendorId, details: { status, scheduled } });
    return { scheduled, status };
  }

  /** Who owns each of these items (a queue page). */
  owners(domain: ReviewDomain, ids: readonly string[]): Promise<Map<string, ItemOwner>> {
    return this.claims.owners(domain, ids);
  }

  /** An item's owner and notes (its page). */
  async workOf(domain: ReviewDomain, id: string): Promise<{ owner: ItemOwner | null; notes: ItemNote[] }> {
    const [owner, notes] = await Promise.all([this.claims.owner(domain, id), this.claims.notes(domain, id)]);
    return { owner, notes };
  }

  claim(domain: ReviewDomain, id: string, actor: Decider): Promise<void> {
    return this.work[domain].claim(id, actor);
  }

  unclaim(domain: ReviewDomain, id: string, actor: Decider): Promise<void> {
    return this.work[domain].unclaim(id, actor);
  }

  reassign(domain: ReviewDomain, id: string, to: unknown, actor: Decider): Promise<void> {
    return this.work[domain].reassign(id, to, actor);
  }

  note(domain: ReviewDomain, id: string, body: unknown, actor: Decider): Promise<void> {
    return this.work[domain].note(id, body, actor);
  }

  /**
   * Before a resolution is proposed: only the item's owner proposes one, and one nobody owns is
   * claimed by proposing (as an exception is by resolving it). The form's own mistakes (no
   * outcome, no reason) are refused first, so a refused proposal leaves no claim behind.
   */
  async beforeProposal(domain: ReviewDomain, id: string, form: { outcome?: unknown; reason?: unknown }, actor: Decider): Promise<void> {
    this.work[domain].assertMayWork(actor);
    if (!REVIEW_OUTCOMES[domain].includes(form.outcome as string)) throw new ValidationFailedError({ outcome: ['Choose an outcome.'] });
    requireReason(form.reason);
    await this.work[domain].onOpen(id, actor, (item, manager) => this.work[domain].ownOrClaim(manager, item, actor));
  }
}
