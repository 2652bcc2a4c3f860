import { AdvancedConsoleLogger } from 'typeorm';

/**
 * SQLSTATE class `ZA`: a refusal a database function raises on purpose (a purchase admission's
 * PURCHASES_PAUSED, QUOTE_EXPIRED, ...: migration 1763781500000), so the statement rolls back
 * whole; the repository turns it into the domain error the client gets. An answer, not a failure.
 */
const DELIBERATE_REFUSAL = /^ZA[0-9A-Z]{3}$/;

export function isDeliberateRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DELIBERATE_REFUSAL.test(code);
}

/**
 * TypeORM's console logger of failed statements (`logging: ['error']`), with two changes: a
 * deliberate refusal is not logged (every refused purchase would print as an error), and a failed
 * statement is logged with its text and error but never its parameters, which carry what vendors
 * sent (recipients' ciphertext, metadata, references) and token hashes.
 */
export class QueryErrorLogger extends AdvancedConsoleLogger {
  constructor() {
    super(['error']);
  }

  // Declared as a string by AbstractLogger; the query runners pass the driver's error object.
  override logQueryError(...[error, ...rest]: Parameters<AdvancedConsoleLogger['logQueryError']>): void {
    if (isDeliberateRefusal(error)) return;
    const [query, , queryRunner] = rest;
    super.logQueryError(error, query, undefined, queryRunner);
  }
}
