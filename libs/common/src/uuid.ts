/** A UUID as PostgreSQL prints it (any version); anything else cannot name a row, so callers answer 404 without a query. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
