/**
 * Data source for the TypeORM CLI (`npm run migration:generate -- Name`). It is an entry
 * point like main.ts, so reading the environment here is allowed. It lives in the ops app
 * because it needs every domain's entities, which #database may not import; the migrations it
 * helps draft remain the definition of the schema.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '#config';
import { buildDataSourceOptions } from '#database';
import { ALL_ENTITIES } from './entities.js';

const config = loadConfig(process.env, {}, ['database']);
export default new DataSource(buildDataSourceOptions({ url: config.DATABASE_URL, poolSize: 2, applicationName: 'typeorm-cli', entities: ALL_ENTITIES }));
