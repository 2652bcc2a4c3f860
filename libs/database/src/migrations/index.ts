import { VendorsAndTokens1763780000000 } from './1763780000000-vendors-and-tokens.js';
import { Outbox1763780000100 } from './1763780000100-outbox.js';

/**
 * Every migration, in order. Listed explicitly (not globbed) so that the apps, the migration
 * CLI and the tests under Jest load exactly the same set. A migration is never edited once
 * it has landed on main; `npm run migration:generate` writes a new file, which is added here.
 */
export const MIGRATIONS = [VendorsAndTokens1763780000000, Outbox1763780000100];
