import { Injectable } from '@nestjs/common';
import { likeEscaped, NotFoundError, UUID_PATTERN } from '#common';
import { VendorService, type VendorEntity } from '#auth';
import { PayoutListsService, PayoutReviewService, type BatchListItem, type PayoutStaffItem } from '#payout';
import { PurchaseReviewService, type PurchaseStaffItem } from '#purchase';
import type { ExceptionDeskItem } from '#reconciliation';
import { ExceptionDesk } from '../exceptions/exception-desk.service.js';

/** How many matches each kind shows at most (newest first); a vendor's own lists go further. */
export const SEARCH_MATCHES = 20;

/** The longest text the search box takes (a vendor's name is at most 200 characters). */
export const SEARCH_MAX_LENGTH = 200;

/**
 * Whether the search box's text can be searched for: an id, a reference or its start, a part of a
 * vendor's name; no control character (PostgreSQL refuses a NUL in a parameter).
 */
export const isSearchable = (text: string): boolean => text.length >= 1 && text.length <= SEARCH_MAX_LENGTH && !/\p{Cc}/u.test(text);

export interface StaffSearchResults {
  purchases: PurchaseStaffItem[];
  payouts: PayoutStaffItem[];
  batches: Array<BatchListItem & { vendorId: string; vendorName: string }>;
  vendors: VendorEntity[];
  exceptions: ExceptionDeskItem[];
}

/**
 * The back-office's one search box, across vendors: purchases, payouts and batches by id or by
 * reference (or its start), vendors by id or a part of their name, reconciliation exceptions by
 * id. Each kind is read through its own domain's staff read, with the text as a query parameter
 * (a LIKE pattern with its wildcards escaped), never spliced into SQL.
 */
@Injectable()
export class StaffSearch {
  constructor(
    private readonly purchaseReview: PurchaseReviewService,
    private readonly payoutReview: PayoutReviewService,
    private readonly payoutLists: PayoutListsService,
    private readonly vendors: VendorService,
    private readonly exceptions: ExceptionDesk,
  ) {}

  async search(text: string): Promise<StaffSearchResults> {
    const trimmed = text.trim();
    const id = UUID_PATTERN.test(trimmed) ? trimmed.toLowerCase() : null;
    const startsWith = `${likeEscaped(trimmed)}%`;
    const [purchases, payouts, batches, vendors, exceptions] = await Promise.all([
      this.purchaseReview.search(id, startsWith, SEARCH_MATCHES),
      this.payoutReview.search(id, startsWith, SEARCH_MATCHES),
      this.payoutLists.staffSearch(id, startsWith, SEARCH_MATCHES),
      this.vendors.search(trimmed, SEARCH_MATCHES),
      id ? this.exception(id) : Promise.resolve([]),
    ]);
    return { purchases, payouts, batches, vendors, exceptions };
  }

  private async exception(id: string): Promise<ExceptionDeskItem[]> {
    try {
      return [await this.exceptions.get(id)];
    } catch (error) {
      if (error instanceof NotFoundError) return [];
      throw error;
    }
  }
}
