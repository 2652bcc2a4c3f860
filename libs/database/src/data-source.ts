/**
 * Data source for the TypeORM CLI (`npm run migration:generate -- Name`). It is an entry
 * point like main.ts, so reading the environment here is allowed.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '#config';
import { buildDataSourceOptions } from './data-source-options.js';

const config = loadConfig();
export default new DataSource(buildDataSourceOptions({ url: config.DATABASE_URL, poolSize: 2, applicationName: 'typeorm-cli' }));
