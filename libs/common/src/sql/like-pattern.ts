/**
 * Text made literal inside a LIKE / ILIKE pattern: `%`, `_` and the escape character itself
 * (PostgreSQL's default, backslash) lose their meaning, so a search for "a_b" does not match "axb".
 * The pattern is still passed as a query parameter, never spliced into the SQL.
 */
export function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}
