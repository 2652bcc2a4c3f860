import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './data-source-options.js';

/** Applies pending migrations in one transaction each; returns the names applied. */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource(buildDataSourceOptions({ url, poolSize: 2, applicationName: 'migrate' }));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
