import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { VendorEntity } from '../vendors/vendor.entity.js';

export type NewVendor = Pick<VendorEntity, 'name' | 'slug' | 'enabledAbilities' | 'productionReleasedAt'>;

/** The vendors table; its entity is the table's definition. */
@Injectable()
export class VendorRepository {
  constructor(@InjectRepository(VendorEntity) private readonly vendors: Repository<VendorEntity>) {}

  insert(vendor: NewVendor): Promise<VendorEntity> {
    return this.vendors.save(this.vendors.create(vendor));
  }

  exists(vendorId: string): Promise<boolean> {
    return this.vendors.existsBy({ id: vendorId });
  }

  find(vendorId: string): Promise<VendorEntity | null> {
    return this.vendors.findOneBy({ id: vendorId });
  }

  /** Every vendor by name (staff's vendor list). */
  list(limit: number): Promise<VendorEntity[]> {
    return this.vendors.find({ order: { name: 'ASC', id: 'ASC' }, take: limit });
  }

  /** Writes the changed columns of a vendor read with find. */
  save(vendor: VendorEntity): Promise<VendorEntity> {
    return this.vendors.save(vendor);
  }
}
