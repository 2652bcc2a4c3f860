/**
 * The sandbox picks an outcome from the last two digits of an identifier, like a real
 * provider's sandbox (table in README.md). Non-digits are ignored so "+27 82 000 0001" counts.
 */
export function testValueSuffix(identifier: string | undefined): string | null {
  if (identifier === undefined) return null;
  const digits = identifier.replace(/\D/g, '');
  return digits.length >= 2 ? digits.slice(-2) : null;
}
