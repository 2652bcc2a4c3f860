import { jest } from '@jest/globals';
import { NotFoundError } from '#common';
import type { VendorRepository } from '../persistence/vendor.repository.js';
import { VendorDirectory } from './vendor-directory.js';

describe('VendorDirectory', () => {
  const vendorId = '0b9d4e1c-7a3f-4f6e-9d21-5c8a2e7b1f40';
  const repository = (known: string[]) => {
    const existsIn = jest.fn(async (id: string) => known.includes(id));
    return { existsIn, directory: new VendorDirectory({ existsIn } as unknown as VendorRepository) };
  };

  it('answers an id that is not a UUID as no vendor, without asking the database', async () => {
    const { existsIn, directory } = repository([]);
    await expect(directory.requireExists('not-a-uuid')).rejects.toBeInstanceOf(NotFoundError);
    expect(existsIn).not.toHaveBeenCalled();
  });

  it("reads existence through the caller's transaction when one is given", async () => {
    const { existsIn, directory } = repository([vendorId]);
    const manager = { query: jest.fn() } as never;
    await expect(directory.requireExists(vendorId, manager)).resolves.toBeUndefined();
    expect(existsIn).toHaveBeenCalledWith(vendorId, manager);
    await expect(directory.requireExists('1b9d4e1c-7a3f-4f6e-9d21-5c8a2e7b1f40')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
