// A raw message's MIME structure in one pass over its bytes, without decoding a body: where each
// part's headers and body lie, which parts nest in which (numbered as IMAP numbers sections and
// Mailpit its PartIDs: 1, 1.2), and a base64 body's decoded size from its length. The SMTP side
// hands mailparser the message without its files' bodies (`skeleton`): mailparser's cost grows
// with every line it splits and decodes, and a reply with two 2 MB files is 75 000 lines of base64
// that the catcher only ever shows the size of. The part API decodes a file from the raw message
// when it is asked for (`partBody`).

const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const TAB = 0x09;
const DASH = 0x2d;
const EQUALS = 0x3d;

/** Deeper nesting or more parts than this is left to mailparser (which has limits of its own). */
const MAX_DEPTH = 50;
const MAX_PARTS = 1000;

/** What the scan does not take on; the caller parses the whole message the slow way instead. */
export class MimeError extends Error {}

export interface MimePart {
  /** '' for the message itself, else its section number: "1", "1.2" (Mailpit's PartID). */
  id: string;
  /** Offsets into the raw message: its first header byte, its first body byte, one past its body's last. */
  start: number;
  bodyStart: number;
  end: number;
  /** Content-Type without parameters, lower case ("text/plain" when there is none, RFC 2045 5.2). */
  type: string;
  /** Content-Transfer-Encoding, lower case ("7bit" when there is none). */
  encoding: string;
  /** A multipart's parts, in order. */
  parts: MimePart[];
}

/** The header fields of the block [start, end), unfolded, by lower-case name (the first of each). */
function headerFields(raw: Buffer, start: number, end: number): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of raw.toString('latin1', start, end).split(/\r?\n(?![ \t])/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!fields.has(name)) fields.set(name, line.slice(colon + 1).replace(/\r?\n/g, ''));
  }
  return fields;
}

/** The message's own header fields, unfolded, by lower-case name (the first of each). */
export function messageFields(raw: Buffer): Map<string, string> {
  return headerFields(raw, 0, Math.min(splitHead(raw, 0, raw.length).headEnd, raw.length));
}

/** A part's header fields, unfolded, by lower-case name (the first of each). */
export const partFields = (raw: Buffer, p: MimePart) => headerFields(raw, p.start, p.bodyStart);

/** Where a part's header block ends and its body begins: after the first empty line. */
function splitHead(raw: Buffer, start: number, end: number): { headEnd: number; bodyStart: number } {
  if (start >= end) return { headEnd: end, bodyStart: end };
  // A part without headers starts with its empty line.
  if (raw[start] === LF) return { headEnd: start, bodyStart: start + 1 };
  if (raw[start] === CR && raw[start + 1] === LF) return { headEnd: start, bodyStart: start + 2 };
  const block = raw.subarray(start, end);
  const crlf = block.indexOf('\n\r\n');
  // A bare-LF blank line, looked for only before the first CRLF one (a message mixes them rarely).
  const lf = block.subarray(0, crlf < 0 ? block.length : crlf).indexOf('\n\n');
  if (lf >= 0) return { headEnd: start + lf + 1, bodyStart: start + lf + 2 };
  if (crlf >= 0) return { headEnd: start + crlf + 1, bodyStart: start + crlf + 3 };
  return { headEnd: end, bodyStart: end }; // all headers, no body
}

/** A multipart's boundary parameter (quoted or not), or undefined. */
function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(contentType);
  const b = m ? (m[1]?.replace(/\\(.)/g, '$1') ?? m[2]) : undefined;
  return b && b.length <= 200 ? b : undefined; // RFC 2046 5.1.1: at most 70 characters
}

/** Scans a raw message; throws MimeError for a structure it does not take on (an unclosed multipart). */
export function scanMessage(raw: Buffer): MimePart {
  let count = 0;
  const part = (id: string, start: number, end: number, depth: number): MimePart => {
    if (++count > MAX_PARTS || depth > MAX_DEPTH) throw new MimeError('too many parts');
    const head = splitHead(raw, start, end);
    const headEnd = Math.min(head.headEnd, end);
    const bodyStart = Math.min(head.bodyStart, end);
    const fields = headerFields(raw, start, headEnd);
    const contentType = fields.get('content-type')?.trim() ?? '';
    const type = /^\s*([^\s;/]+\/[^\s;]+)/.exec(contentType)?.[1]?.toLowerCase() ?? 'text/plain';
    const encoding = fields.get('content-transfer-encoding')?.trim().toLowerCase() || '7bit';
    const p: MimePart = { id, start, bodyStart, end, type, encoding, parts: [] };
    if (type.startsWith('multipart/')) {
      const boundary = boundaryOf(contentType);
      if (!boundary) throw new MimeError('multipart without a boundary');
      p.parts = children(raw, p, boundary).map(([s, e], i) =>
        part(id ? `${id}.${i + 1}` : String(i + 1), s, e, depth + 1),
      );
    }
    return p;
  };
  return part('', 0, raw.length, 0);
}

/**
 * The [start, end) of each part of a multipart body: between its delimiter lines (`--boundary` at
 * the start of a line, optional spaces, a line break), the line break before a delimiter being the
 * delimiter's (RFC 2046 5.1.1). Found with indexOf, so a 5 MB body costs a few native scans.
 */
function children(raw: Buffer, p: MimePart, boundary: string): [number, number][] {
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const lines: { at: number; next: number }[] = [];
  let pos = p.bodyStart;
  for (;;) {
    const at = raw.indexOf(delimiter, pos);
    if (at < 0 || at >= p.end) throw new MimeError('multipart without its closing delimiter');
    pos = at + delimiter.length;
    if (at !== p.bodyStart && raw[at - 1] !== LF) continue; // not at the start of a line
    let k = pos;
    const close = raw[k] === DASH && raw[k + 1] === DASH;
    if (close) k += 2;
    while (k < p.end && (raw[k] === SP || raw[k] === TAB)) k++;
    let next: number;
    if (k >= p.end) next = p.end;
    else if (raw[k] === CR && raw[k + 1] === LF) next = k + 2;
    else if (raw[k] === LF) next = k + 1;
    else continue; // a longer boundary that starts with this one (a nested multipart's)
    if (close) {
      const parts: [number, number][] = [];
      for (let i = 0; i < lines.length; i++) {
        const end = i + 1 < lines.length ? lines[i + 1].at : at;
        let e = end;
        if (raw[e - 1] === LF) e--;
        if (raw[e - 1] === CR) e--;
        parts.push([lines[i].next, Math.max(lines[i].next, e)]);
      }
      return parts;
    }
    lines.push({ at, next });
    if (lines.length > MAX_PARTS) throw new MimeError('too many parts');
    pos = next;
  }
}

/**
 * The size of a base64 body once decoded (what the part API gives), decoded natively and let go: a JS
 * loop over the characters cost ~10 ns each, 40 ms for a 2 MB file's.
 */
export function base64Size(raw: Buffer, start: number, end: number): number {
  return Buffer.from(raw.toString('latin1', start, end), 'base64').length;
}

/** Every part of the tree, in order (the message first). */
export function allParts(root: MimePart): MimePart[] {
  const out: MimePart[] = [];
  const walk = (p: MimePart) => {
    out.push(p);
    p.parts.forEach(walk);
  };
  walk(root);
  return out;
}

/** A part's body decoded (base64, quoted-printable; 7bit, 8bit and binary as they came). */
export function partBody(raw: Buffer, p: MimePart): Buffer {
  const body = raw.subarray(p.bodyStart, p.end);
  if (p.encoding === 'base64') return Buffer.from(body.toString('latin1'), 'base64');
  if (p.encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return Buffer.from(body);
}

const hex = (c: number) =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;

/** RFC 2045 6.7: =XX is a byte, "=" at the end of a line (spaces allowed before the break) joins it to the next. */
export function decodeQuotedPrintable(body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(body.length);
  let o = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== EQUALS) {
      out[o++] = c;
      continue;
    }
    const hi = hex(body[i + 1]);
    const lo = hex(body[i + 2]);
    if (hi >= 0 && lo >= 0) {
      out[o++] = (hi << 4) | lo;
      i += 2;
      continue;
    }
    let k = i + 1;
    while (body[k] === SP || body[k] === TAB) k++;
    if (body[k] === CR && body[k + 1] === LF) i = k + 1;
    else if (body[k] === LF) i = k;
    else if (k >= body.length) i = k;
    else out[o++] = c; // a lone "=" is kept, as decoders do
  }
  return out.subarray(0, o);
}

/** The header every part but the message gets in the skeleton: its PartID and, for a dropped body, its size. */
export const PART_HEADER = 'x-tend-part';

/**
 * The message for mailparser: every part marked with an `X-Tend-Part: <id>[ <size>]` header, and the
 * bodies of its base64 files (any part not text/*) left out, their sizes in that header instead. The
 * message's own headers and its text and HTML bodies stay as they came. Undefined for a message
 * of one part (mailparser reads it as it is).
 */
export function skeleton(raw: Buffer, root: MimePart): Buffer | undefined {
  if (!root.parts.length) return undefined;
  const dropped = (p: MimePart) => p.encoding === 'base64' && !p.type.startsWith('text/') && p.end > p.bodyStart;
  const pieces: Buffer[] = [];
  let pos = 0;
  for (const p of allParts(root)) {
    if (!p.id) continue;
    pieces.push(raw.subarray(pos, p.start));
    const drop = !p.parts.length && dropped(p);
    pieces.push(Buffer.from(`X-Tend-Part: ${p.id}${drop ? ` ${base64Size(raw, p.bodyStart, p.end)}` : ''}\r\n`));
    pos = p.start;
    if (drop) {
      pieces.push(raw.subarray(pos, p.bodyStart));
      pos = p.end;
    }
  }
  pieces.push(raw.subarray(pos));
  return Buffer.concat(pieces);
}

/** What a skeleton's X-Tend-Part header says. */
export function readPartHeader(value: unknown): { id: string; size?: number } | undefined {
  const m = typeof value === 'string' ? /^\s*([\d.]+)(?:\s+(\d+))?\s*$/.exec(value) : null;
  return m ? { id: m[1], size: m[2] === undefined ? undefined : Number(m[2]) } : undefined;
}
