import type { Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A CSV cell: text (neutralised against spreadsheet formulas), an exact decimal (written as is),
 * or null (empty). Decimals are their own kind so that a negative amount stays a number: only
 * our own formatted decimals are ever written unquoted and unprefixed.
 */
export type CsvCell = string | null | { decimal: string };

const DECIMAL = /^-?\d+(\.\d+)?$/;
/** What a spreadsheet reads as the start of a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

export const decimalCell = (value: string): CsvCell => ({ decimal: value });

/**
 * One cell as RFC 4180 text. A text cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading
 * apostrophe, so a spreadsheet shows it as text instead of running it.
 */
export function csvCell(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'object') {
    if (!DECIMAL.test(cell.decimal)) throw new Error(`not a decimal: ${cell.decimal}`);
    return cell.decimal;
  }
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return /[",\r\n']/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * Streams a header and batches of rows as a CSV download. The batches are pulled one at a time as the
 * client reads (pipeline's backpressure), so memory stays flat whatever the row count. Errors
 * before the first byte are the caller's to report; an error after it aborts the chunked response,
 * so the client sees a failed download rather than a short file.
 */
export async function streamCsv(response: Response, filename: string, header: readonly string[], batches: AsyncIterable<ReadonlyArray<readonly CsvCell[]>>): Promise<void> {
  response.status(200);
  response.setHeader('Content-Type', 'text/csv; charset=utf-8');
  response.setHeader('Content-Disposition', `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
  response.setHeader('Cache-Control', 'no-store');
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(header);
    for await (const rows of batches) yield rows.map(csvLine).join('');
  }
  // One batch buffered ahead at most: the database is read only as fast as the client takes the file.
  await pipeline(Readable.from(lines(), { highWaterMark: 1 }), response);
}
