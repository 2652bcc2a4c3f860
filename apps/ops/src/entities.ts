import { AUTH_ENTITIES } from '#auth';
import { PAYOUT_ENTITIES } from '#payout';
import { PURCHASE_ENTITIES } from '#purchase';
import { OUTBOX_ENTITIES } from '#queues';

/**
 * Every entity class of the system of record. The ops CLI reaches every domain, and the TypeORM
 * CLI's data source (data-source.ts) compares them with the database. Composed here, in an app,
 * because #database must not depend on the domain libs that define them.
 */
export const ALL_ENTITIES = [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PAYOUT_ENTITIES, ...PURCHASE_ENTITIES];
