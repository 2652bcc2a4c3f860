/** Parses RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const input = text.replace(/^\uFEFF/, '');
  for (let index = 0; index < input.length; index++) {
    const character = input[index];
    if (quoted) {
      if (character === '"' && input[index + 1] === '"') {
        field += '"';
        index++;
      } else if (character === '"') {
        quoted = false;
      } else {
        field += character;
      }
    } else if (character === '"' && field === '') {
      quoted = true;
    } else if (character === ',') {
      row.push(field);
      field = '';
    } else if (character === '\n' || character === '\r') {
      if (character === '\r' && input[index + 1] === '\n') index++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += character;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ''));
}

const RECIPIENT_FIELDS = ['first_name', 'middle_name', 'surname', 'phone', 'id_type', 'id_number', 'country_of_issue', 'nationality', 'email', 'date_of_birth'];
const BANK_ACCOUNT_FIELDS = ['bank_name', 'account_number', 'account_name', 'branch_code'];
const PAYOUT_FIELDS = ['reference', 'amount', 'currency', 'method'];
export const CSV_HEADER_FIELDS = [...PAYOUT_FIELDS, ...RECIPIENT_FIELDS, ...BANK_ACCOUNT_FIELDS];
export const CSV_REQUIRED_FIELDS = ['reference', 'amount', 'method', 'first_name', 'surname', 'phone', 'id_type', 'id_number', 'country_of_issue', 'nationality'];

export interface CsvBatch {
  /** Items in the wire shape of POST /batches, so the same validation applies unchanged. */
  payouts: Record<string, unknown>[];
  /** Problems with the file itself (header), before any row can be read. */
  fileErrors: string[];
}

/**
 * Maps CSV rows onto PayoutRequest objects and nothing more: empty cells are left out, the
 * currency defaults to ZAR, bank columns become `recipient.bank_account`. Every rule is then
 * applied by POST /batches' own validation and admission, so a row is accepted or refused
 * exactly as the API would.
 */
export function batchFromCsv(text: string): CsvBatch {
  const rows = parseCsv(text);
  if (rows.length === 0) return { payouts: [], fileErrors: ['The file is empty.'] };
  const header = rows[0].map((cell) => cell.trim().toLowerCase());
  const fileErrors: string[] = [];
  const unknown = header.filter((column) => !CSV_HEADER_FIELDS.includes(column));
  if (unknown.length > 0) fileErrors.push(`Unknown columns: ${unknown.join(', ')}. Allowed: ${CSV_HEADER_FIELDS.join(', ')}.`);
  const missing = CSV_REQUIRED_FIELDS.filter((column) => !header.includes(column));
  if (missing.length > 0) fileErrors.push(`Missing columns: ${missing.join(', ')}.`);
  const duplicated = header.filter((column, index) => header.indexOf(column) !== index);
  if (duplicated.length > 0) fileErrors.push(`Repeated columns: ${[...new Set(duplicated)].join(', ')}.`);
  if (rows.length === 1) fileErrors.push('The file has a header but no payouts.');
  if (fileErrors.length > 0) return { payouts: [], fileErrors };

  const payouts = rows.slice(1).map((cells) => {
    const value = (column: string) => {
      const index = header.indexOf(column);
      const cell = index >= 0 ? (cells[index] ?? '').trim() : '';
      return cell === '' ? undefined : cell;
    };
    const recipient: Record<string, unknown> = {};
    for (const column of RECIPIENT_FIELDS) if (value(column) !== undefined) recipient[column] = value(column);
    if (BANK_ACCOUNT_FIELDS.some((column) => value(column) !== undefined)) {
      recipient.bank_account = Object.fromEntries(BANK_ACCOUNT_FIELDS.filter((column) => value(column) !== undefined).map((column) => [column, value(column)]));
    }
    const payout: Record<string, unknown> = { reference: value('reference'), amount: value('amount'), currency: value('currency') ?? 'ZAR', method: value('method'), recipient };
    for (const key of Object.keys(payout)) if (payout[key] === undefined) delete payout[key];
    return payout;
  });
  return { payouts, fileErrors };
}
