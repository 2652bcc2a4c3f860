import { ApiTokenEntity, VendorEntity } from '#auth';
import { OutboxMessageEntity } from '#queues';
import { PAYOUT_ENTITIES } from '#payout';
import { PURCHASE_ENTITIES } from '#purchase';

/** Every entity of the system of record; the data source and migration:generate both use it. */
export const ENTITIES = [VendorEntity, ApiTokenEntity, OutboxMessageEntity, ...PAYOUT_ENTITIES, ...PURCHASE_ENTITIES];
