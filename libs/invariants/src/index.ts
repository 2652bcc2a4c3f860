export * from './persistence/invariant-checker.js';
export type { InvariantQuery } from './persistence/invariant-query.js';
