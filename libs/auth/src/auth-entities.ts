import { ApiTokenEntity } from './tokens/api-token.entity.js';
import { VendorEntity } from './vendors/vendor.entity.js';

/** The auth tables the code reads through TypeORM; each app that imports an auth module registers them (DatabaseModule.forRoot). */
export const AUTH_ENTITIES = [VendorEntity, ApiTokenEntity];
