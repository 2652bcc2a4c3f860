import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { ILike, In, Repository, type EntityManager, type FindOptionsWhere } from 'typeorm';
import type { Queryable } from '#database';
import { VendorEntity } from '../vendors/vendor.entity.js';

export type NewVendor = Pick<VendorEntity, 'name' | 'slug' | 'enabledAbilities' | 'productionReleasedAt'>;

/** The vendors table; its entity is the table's definition. */
@Injectable()
export class VendorRepository {
  constructor(@InjectRepository(VendorEntity) private readonly vendors: Repository<VendorEntity>) {}

  insert(vendor: NewVendor, manager: EntityManager = this.vendors.manager): Promise<VendorEntity> {
    const vendors = manager.getRepository(VendorEntity);
    return vendors.save(vendors.create(vendor));
  }

  exists(vendorId: string): Promise<boolean> {
    return this.vendors.existsBy({ id: vendorId });
  }

  /** Whether a vendor has this id, read through `manager` (the caller's transaction) when given. */
  async existsIn(vendorId: string, manager: Queryable = this.vendors.manager): Promise<boolean> {
    const rows = await manager.query<unknown[]>(`SELECT 1 FROM vendors WHERE id = $1`, [vendorId]);
    return rows.length > 0;
  }

  /** When staff released the vendor for production (null: not yet, or no such vendor). One column, read per request. */
  async productionReleasedAt(vendorId: string): Promise<Date | null> {
    const [row] = await this.vendors.manager.query<{ releasedAt: Date | null }[]>(`SELECT production_released_at AS "releasedAt" FROM vendors WHERE id = $1`, [vendorId]);
    return row?.releasedAt ?? null;
  }

  find(vendorId: string): Promise<VendorEntity | null> {
    return this.vendors.findOneBy({ id: vendorId });
  }

  /** Every vendor by name (staff's vendor list). */
  list(limit: number): Promise<VendorEntity[]> {
    return this.vendors.find({ order: { name: 'ASC', id: 'ASC' }, take: limit });
  }

  /**
   * Vendors with this id (a UUID, or null) or whose name contains `namePattern` (an ILIKE pattern,
   * backslash escaping, parameterised by TypeORM), by name: the back-office search.
   */
  search(id: string | null, namePattern: string, limit: number): Promise<VendorEntity[]> {
    const where: FindOptionsWhere<VendorEntity>[] = [{ name: ILike(namePattern) }, ...(id ? [{ id }] : [])];
    return this.vendors.find({ where, order: { name: 'ASC', id: 'ASC' }, take: limit });
  }

  /** The vendors with these ids (unknown ids are left out). */
  findMany(vendorIds: readonly string[]): Promise<VendorEntity[]> {
    return vendorIds.length === 0 ? Promise.resolve([]) : this.vendors.findBy({ id: In([...vendorIds]) });
  }

  /** The vendor, its row locked until the caller's transaction ends (staff changes, so two of them apply one after the other). */
  findForUpdate(vendorId: string, manager: EntityManager): Promise<VendorEntity | null> {
    return manager.getRepository(VendorEntity).findOne({ where: { id: vendorId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Writes the changed columns of a vendor read with find or findForUpdate, in the caller's transaction if given. */
  save(vendor: VendorEntity, manager: EntityManager = this.vendors.manager): Promise<VendorEntity> {
    return manager.getRepository(VendorEntity).save(vendor);
  }
}
