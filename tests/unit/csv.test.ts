import { describe, expect, it } from 'vitest';
import { CSV_BOM, csvCell, csvRow } from '../../app/lib/export/csv.ts';

describe('CSV (RFC 4180, formula injection)', () => {
  it('quotes cells with commas, quotes and line breaks, doubling quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\r\nlf')).toBe('"cr\r\nlf"');
    expect(csvCell('Grüße 👋')).toBe('Grüße 👋');
    expect(csvCell(null)).toBe('');
    expect(csvCell(42)).toBe('42');
  });

  it('neutralises cells a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvCell(`${start}HYPERLINK("http://evil.example")`).startsWith(`"'${start}`)).toBe(true);
    }
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('-5')).toBe("'-5");
    // Numbers the export writes itself (ticket numbers) stay numbers.
    expect(csvCell(-5)).toBe('-5');
  });

  it('rows end in CRLF; the file starts with a UTF-8 BOM', () => {
    expect(csvRow(['a', 'b,c', 3])).toBe('a,"b,c",3\r\n');
    expect(new TextEncoder().encode(CSV_BOM)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
  });
});
