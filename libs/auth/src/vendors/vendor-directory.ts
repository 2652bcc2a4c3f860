import { Injectable } from '@nestjs/common';
import { NotFoundError, UUID_PATTERN } from '#common';
import type { Queryable } from '#database';
import { VendorRepository } from '../persistence/vendor.repository.js';

/**
 * The facts about a vendor that other libs read (`vendors` belongs to #auth): whether it exists,
 * when staff released it for production, its name. The one way they read the vendors table;
 * each fact is read when asked (never cached), so a release or a new vendor counts at once.
 */
@Injectable()
export class VendorDirectory {
  constructor(private readonly vendors: VendorRepository) {}

  /** Whether the id names a vendor; an id that is not a UUID names none (answered without asking the database). */
  async exists(vendorId: string, manager?: Queryable): Promise<boolean> {
    return UUID_PATTERN.test(vendorId) && (await this.vendors.existsIn(vendorId, manager));
  }

  /** NotFoundError('vendor') unless the id names a vendor; `manager`: read in the caller's transaction. */
  async requireExists(vendorId: string, manager?: Queryable): Promise<void> {
    if (!(await this.exists(vendorId, manager))) throw new NotFoundError('vendor');
  }

  /** When staff released the vendor for production purchases and payouts; null until then. */
  productionReleasedAt(vendorId: string): Promise<Date | null> {
    return this.vendors.productionReleasedAt(vendorId);
  }

  /** The names of the vendors with these ids, by id (ids that are not a vendor's UUID are left out). */
  async namesOf(vendorIds: Iterable<string | null | undefined>): Promise<Map<string, string>> {
    const ids = [...new Set([...vendorIds].filter((id): id is string => typeof id === 'string' && UUID_PATTERN.test(id)))];
    return new Map((await this.vendors.findMany(ids)).map((vendor): [string, string] => [vendor.id, vendor.name]));
  }
}
