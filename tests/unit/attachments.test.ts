import { describe, expect, it } from 'vitest';
import { checkFiles } from '../../app/components/attachments-enhance.ts';
import {
  attachmentDisposition,
  attachmentTypeOf,
  downloadType,
  formatSize,
  safeStorageName,
} from '../../app/lib/helpdesk/attachments.ts';

describe('attachment names and types', () => {
  it('types come from the extension, allowed ones only', () => {
    expect(attachmentTypeOf('Photo.JPG')).toBe('image/jpeg');
    expect(attachmentTypeOf('report.docx')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(attachmentTypeOf('setup.exe')).toBeNull();
    expect(attachmentTypeOf('page.html')).toBeNull();
    expect(attachmentTypeOf('image.svg')).toBeNull();
    expect(attachmentTypeOf('README')).toBeNull();
  });

  it('storage names drop separators, control characters and what storage-api refuses, and stay short', () => {
    expect(safeStorageName('../../etc/passwd.txt')).toBe('._._etc_passwd.txt');
    expect(safeStorageName('a\\b/c.png')).toBe('a_b_c.png');
    expect(safeStorageName('tab\there\u0000.pdf')).toBe('tab_here_.pdf');
    expect(safeStorageName('Résumé 2026.pdf')).toBe('Resume 2026.pdf');
    expect(safeStorageName('🙂.png')).toBe('__.png');
    expect(safeStorageName('.png')).toBe('.png');
    const long = safeStorageName(`${'x'.repeat(300)}.xlsx`);
    expect(long).toHaveLength(100);
    expect(long.endsWith('.xlsx')).toBe(true);
    expect(safeStorageName('   ')).toBe('file');
    expect(safeStorageName('..')).toBe('file');
  });

  it('sizes read as people write them', () => {
    expect(formatSize(12)).toBe('12 bytes');
    expect(formatSize(2048)).toBe('2 KB');
    expect(formatSize(2.5 * 1024 * 1024)).toBe('2.5 MB');
  });

  it('the browser check gives the catalogue messages', () => {
    const file = (name: string, size: number) => ({ name, size }) as File;
    expect(checkFiles([file('a.png', 10), file('b.exe', 10), file('c.pdf', 11 * 1024 * 1024)])).toEqual([
      '"b.exe" isn\'t a supported file type.',
      '"c.pdf" is larger than 10 MB.',
    ]);
    expect(checkFiles(Array.from({ length: 6 }, (_, i) => file(`${i}.png`, 1)))).toEqual([
      'Attach at most 5 files to one message.',
    ]);
  });
});

describe('downloads', () => {
  it('are typed by the rules for their name, else as bytes of no particular type', () => {
    expect(downloadType('receipt.pdf', 'application/pdf')).toBe('application/pdf');
    expect(downloadType('logo.png', 'image/png')).toBe('image/png');
    // A copy that changed type, or a name that says another: never the stored type.
    expect(downloadType('logo.png', 'image/svg+xml')).toBe('application/octet-stream');
    expect(downloadType('logo.svg', 'image/svg+xml')).toBe('application/octet-stream');
    expect(downloadType('page.pdf', 'text/html')).toBe('application/octet-stream');
  });

  it('carry the name as given: an ASCII fallback and the UTF-8 name (RFC 6266)', () => {
    expect(attachmentDisposition('receipt.pdf')).toBe(
      `attachment; filename="receipt.pdf"; filename*=UTF-8''receipt.pdf`,
    );
    expect(attachmentDisposition('Über "quoted" 100%.txt')).toBe(
      `attachment; filename="_ber _quoted_ 100_.txt"; filename*=UTF-8''%C3%9Cber%20%22quoted%22%20100%25.txt`,
    );
    expect(attachmentDisposition("it's (1).pdf")).toBe(
      `attachment; filename="it's (1).pdf"; filename*=UTF-8''it%27s%20%281%29.pdf`,
    );
  });
});
