// CSV as RFC 4180 writes it, for spreadsheets (issue 18: the inbox's export): CRLF line ends, a cell
// with a comma, quote or line break in quotes (quotes doubled), and a UTF-8 byte order mark so Excel
// reads the text as UTF-8. A cell that starts with =, +, -, @ (or a tab or CR, which some spreadsheets
// skip first) would run as a formula: it gets a leading apostrophe (OWASP "CSV injection").

export const CSV_BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(cells: (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
