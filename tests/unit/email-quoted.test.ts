// What inbound-email keeps of a reply: the new text, without quoted history or signature.
import { describe, expect, it } from 'vitest';
import { htmlToText, stripQuoted } from '../../supabase/functions/_shared/quoted.ts';

describe('stripQuoted', () => {
  it.each([
    ['Gmail', 'Thanks, fixed!\n\nOn Tue, 24 Nov 2026 at 10:00, Acme <support@acme.test> wrote:\n> Did it help?\n> Bye'],
    [
      'a wrapped "wrote:" line',
      'Thanks, fixed!\n\nOn Tue, 24 Nov 2026 at 10:00, Acme Support\n<support@acme.test> wrote:\n\n> Did it help?',
    ],
    ['Outlook', 'Thanks, fixed!\r\n\r\n-----Original Message-----\r\nFrom: Acme\r\nSent: Tuesday\r\n\r\nDid it help?'],
    [
      'Outlook’s header block',
      'Thanks, fixed!\n\n________________________________\nFrom: Acme <support@acme.test>\nSent: Tuesday',
    ],
    ['a signature', 'Thanks, fixed!\n-- \nPat Example\nCEO'],
    ['a phone footer', 'Thanks, fixed!\n\nSent from my iPhone'],
    ['trailing "> " lines', 'Thanks, fixed!\n\n> Did it help?\n>\n> Bye'],
  ])('cuts %s', (_, text) => {
    expect(stripQuoted(text)).toBe('Thanks, fixed!');
  });

  it('keeps quotes the writer answers inline, and text without history as it is', () => {
    expect(stripQuoted('> Is it on?\nYes.\n> And now?\nAlso yes.')).toBe('> Is it on?\nYes.\n> And now?\nAlso yes.');
    expect(stripQuoted('Line one\n\n\n\nLine two')).toBe('Line one\n\nLine two');
  });

  it('reads HTML-only mail as text, without the quoted blockquote', () => {
    expect(
      stripQuoted(htmlToText('<div>Fixed &amp; done<br>Pat</div><blockquote type="cite">Did it help?</blockquote>')),
    ).toBe('Fixed & done\nPat');
  });
});
