import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { likeEscaped, NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { ALL_ABILITIES, isAbility } from '../access/abilities.js';
import { VendorRepository } from '../persistence/vendor.repository.js';
import { VendorDirectory } from './vendor-directory.js';
import type { VendorEntity } from './vendor.entity.js';

@Injectable()
export class VendorService {
  constructor(
    private readonly vendors: VendorRepository,
    private readonly directory: VendorDirectory,
  ) {}

  /** New vendors start with every ability enabled; staff narrow them with setAbilities. */
  async create(name: string, manager?: EntityManager): Promise<VendorEntity> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 200) throw new ValidationFailedError({ name: ['name must be 1 to 200 characters'] });
    const base = trimmed.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'vendor';
    const slug = `${base}-${randomBytes(3).toString('hex')}`;
    return this.vendors.insert({ name: trimmed, slug, enabledAbilities: [...ALL_ABILITIES], productionReleasedAt: null }, manager);
  }

  /** Every vendor by name, for staff (the back-office); at most `limit`. */
  list(limit = 500): Promise<VendorEntity[]> {
    return this.vendors.list(limit);
  }

  /** Vendors by id or by a part of their name, for staff (the back-office search); at most `limit`, by name. */
  search(text: string, limit = 20): Promise<VendorEntity[]> {
    const trimmed = text.trim();
    return this.vendors.search(UUID_PATTERN.test(trimmed) ? trimmed.toLowerCase() : null, `%${likeEscaped(trimmed)}%`, limit);
  }

  /** The names of the vendors with these ids, by id (ids that are not a vendor's UUID are left out). */
  namesOf(vendorIds: Iterable<string | null | undefined>): Promise<Map<string, string>> {
    return this.directory.namesOf(vendorIds);
  }

  async get(vendorId: string): Promise<VendorEntity> {
    const vendor = await this.vendors.find(vendorId);
    if (!vendor) throw new NotFoundError('vendor');
    return vendor;
  }

  /** `manager`: the caller's transaction (a staff change commits with its audit record); the vendor's row is then locked until it ends. */
  async setAbilities(vendorId: string, enable: string[], disable: string[], manager?: EntityManager): Promise<VendorEntity> {
    const unknown = [...enable, ...disable].filter((ability) => !isAbility(ability));
    if (unknown.length > 0) throw new ValidationFailedError({ abilities: [`unknown abilities: ${unknown.join(', ')}`] });
    const vendor = await this.read(vendorId, manager);
    const next = new Set(vendor.enabledAbilities);
    enable.forEach((ability) => next.add(ability));
    disable.forEach((ability) => next.delete(ability));
    vendor.enabledAbilities = ALL_ABILITIES.filter((ability) => next.has(ability));
    return this.vendors.save(vendor, manager);
  }

  async release(vendorId: string, manager?: EntityManager): Promise<VendorEntity> {
    const vendor = await this.read(vendorId, manager);
    vendor.productionReleasedAt ??= new Date();
    return this.vendors.save(vendor, manager);
  }

  /** The vendor as it stands in the caller's transaction (row locked), or as committed. */
  async read(vendorId: string, manager?: EntityManager): Promise<VendorEntity> {
    if (!manager) return this.get(vendorId);
    const vendor = await this.vendors.findForUpdate(vendorId, manager);
    if (!vendor) throw new NotFoundError('vendor');
    return vendor;
  }
}
