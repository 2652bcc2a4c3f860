import { ApiTokenEntity, VendorEntity } from '#auth';
import { OutboxMessageEntity } from '#queues';

/** Every entity of the system of record; the data source and migration:generate both use it. */
export const ENTITIES = [VendorEntity, ApiTokenEntity, OutboxMessageEntity];
