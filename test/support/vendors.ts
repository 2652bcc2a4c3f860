import type { INestApplicationContext } from '@nestjs/common';
import { ALL_ABILITIES, TokenService, VendorService, type VendorEntity } from '#auth';

export interface TestVendor {
  vendor: VendorEntity;
  /** A token holding every ability and scope. */
  token: string;
  tokenId: string;
  issue: (abilities: readonly string[], lifetimeSeconds?: number) => Promise<{ id: string; token: string }>;
}

/** A fresh vendor with all abilities enabled and one all-powerful token. */
export async function createTestVendor(app: INestApplicationContext, name = 'Test vendor'): Promise<TestVendor> {
  const vendors = app.get(VendorService);
  const tokens = app.get(TokenService);
  const vendor = await vendors.create(name);
  const issue = async (abilities: readonly string[], lifetimeSeconds = 3_600) => {
    const issued = await tokens.issue(vendor.id, [...abilities], lifetimeSeconds);
    return { id: issued.id, token: issued.token };
  };
  const all = await issue(ALL_ABILITIES);
  return { vendor, token: all.token, tokenId: all.id, issue };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
