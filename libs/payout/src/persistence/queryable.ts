import type { EntityManager } from 'typeorm';

/** Where a repository method runs: the caller's transaction (its EntityManager), or the injected DataSource's manager. */
export type Queryable = Pick<EntityManager, 'query'>;
