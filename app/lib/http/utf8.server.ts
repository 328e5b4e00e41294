// A rendered document's bytes (docs/decisions/110-page-bytes-and-the-app-cpu.md).
import { transcode } from 'node:buffer';

/**
 * `text` as UTF-8, as Buffer.from(text) writes it. A page with any character beyond Latin-1 (an arrow, a dash,
 * a curly quote: the app's own words and most customers' text have some) is a two-byte string in V8, which
 * Buffer.from encodes one character at a time: ~0.4 ms for a 55 KB inbox page under load, ~5 % of its CPU.
 * Copied out as UTF-16 and transcoded by ICU, the same bytes cost ~1/6 of that (a one-byte page about the same
 * as before). ICU refuses a lone surrogate, which Buffer.from writes as U+FFFD: such a text takes that way.
 */
export function utf8Bytes(text: string): Buffer<ArrayBuffer> {
  try {
    // A buffer of its own (not a SharedArrayBuffer's), as Buffer.from's is: a Response body.
    return transcode(Buffer.from(text, 'utf16le'), 'utf16le', 'utf8') as Buffer<ArrayBuffer>;
  } catch {
    return Buffer.from(text);
  }
}
