// Caught emails, one JSON file each under <dir>/mail, loaded on start so a restart keeps them; a
// message that came over SMTP also as it came (<id>.eml), written before its JSON. A message taken over
// SMTP is kept as it came, with its envelope, and parsed when the API or the inbox first reads the
// mailbox (`settle`): an SMTP relay stores what it is handed; reading is the reader's work
// (docs/decisions/101-notification-emails-in-batches.md). Until then it is a record appended to one
// journal (received.journal) with one write, as a relay appends to its queue file: creating two files
// a message was half the catcher's CPU an email in this sandbox (docs/decisions/121-mail-journal-and-one-write.md).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
  writevSync,
} from 'node:fs';
import path from 'node:path';

export interface Address {
  name: string;
  email: string;
}

/** What a sender hands over: the stack's `OutgoingMail`, or the send API's richer body. */
export interface NewMail {
  from: { name?: string; email: string };
  to: { name?: string; email: string }[];
  cc?: { name?: string; email: string }[];
  bcc?: { name?: string; email: string }[];
  replyTo?: { name?: string; email: string }[];
  subject: string;
  text: string;
  html: string;
  tags?: string[];
  /** From SMTP: the sender's Message-ID (without <>), its headers, its attachments. */
  messageId?: string;
  headers?: Record<string, string[]>;
  attachments?: AttachmentInfo[];
  /** From SMTP: the message as it came (its Size, and where its files are read from). */
  raw?: Buffer;
}

/** SMTP's envelope: MAIL FROM and RCPT TO. */
export interface Envelope {
  from?: string;
  to: string[];
}

/** A message taken over SMTP and not parsed yet: its journal record's header (or, before 121, its JSON). */
interface Received {
  id: string;
  seq: number;
  created: string;
  envelope: Envelope;
  received: true;
  /** Where its raw bytes are in the journal; absent for one kept as <id>.eml (a data dir from before 121). */
  at?: number;
  size?: number;
}

/** Reads a raw message for the store (smtp.ts parseRaw). */
export type ParseRaw = (raw: Buffer, envelope: Envelope) => Promise<NewMail>;

/** An attachment's description (its bytes are in the raw message), as Mailpit lists it. */
export interface AttachmentInfo {
  partId: string;
  fileName: string;
  contentType: string;
  contentId: string;
  size: number;
  /** Referenced from the HTML by its Content-ID (Mailpit's Inline list). */
  inline: boolean;
}

export interface StoredMail {
  id: string;
  /** Arrival order; breaks ties between emails sent within the same millisecond. */
  seq: number;
  messageId: string;
  created: string;
  read: boolean;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  html: string;
  text: string;
  tags: string[];
  size: number;
  headers: Record<string, string[]>;
  attachments: AttachmentInfo[];
}

// Mailpit: IDs are shortuuids, 22 URL-safe characters. The random bytes are drawn 4 KB at a time: a draw of 22
// was a call into OpenSSL for every message taken (~45 µs, a tenth of the store's work a message).
const ID_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
let randomPool = Buffer.alloc(0);
const newId = () => {
  if (randomPool.length < 22) randomPool = randomBytes(4096);
  const bytes = randomPool.subarray(0, 22);
  randomPool = randomPool.subarray(22);
  return [...bytes].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
};
export const isId = (s: string) => /^[A-Za-z0-9_-]{1,64}$/.test(s);

const addr = (a: { name?: string; email: string }): Address => ({ name: a.name ?? '', email: a.email.trim() });

export class MailStore {
  private readonly dir: string;
  private readonly messages = new Map<string, StoredMail>();
  /** Taken over SMTP, not parsed yet, in arrival order. */
  private readonly received = new Map<string, Received>();
  private settling: Promise<void> | undefined;
  private seq = 0;
  /** The journal of received messages, open for appending; emptied when every one is parsed. */
  private readonly journal: number;
  private journalSize = 0;

  constructor(
    dataDir: string,
    private readonly parse?: ParseRaw,
  ) {
    this.dir = path.join(dataDir, 'mail');
    mkdirSync(this.dir, { recursive: true });
    const files = readdirSync(this.dir);
    for (const f of files) {
      const file = path.join(this.dir, f);
      if (f.endsWith('.tmp')) rmSync(file, { force: true }); // left by a crash mid-write
      if (!f.endsWith('.json')) continue;
      const m = load(file);
      if (!m) continue;
      if ('received' in m) this.received.set(m.id, m);
      else this.messages.set(m.id, m);
      this.seq = Math.max(this.seq, m.seq);
    }
    // A raw message without its JSON was never acknowledged (a crash between the two writes).
    for (const f of files)
      if (f.endsWith('.eml') && !this.messages.has(f.slice(0, -4)) && !this.received.has(f.slice(0, -4)))
        rmSync(path.join(this.dir, f), { force: true });
    for (const r of this.received.values()) if (!existsSync(this.rawFile(r.id))) this.received.delete(r.id);
    this.journal = openSync(this.journalFile(), 'a+');
    this.loadJournal();
  }

  private journalFile() {
    return path.join(this.dir, 'received.journal');
  }

  /**
   * The journal's whole records, in order: each a line of JSON (its header, or a deletion) and then `size` raw
   * bytes. One parsed already (its JSON is there: a crash before the journal was emptied) is skipped; a record
   * cut short (a crash mid-write, never acknowledged) ends it, and is cut off so later records follow whole ones.
   */
  private loadJournal() {
    const buf = readFileSync(this.journalFile());
    let at = 0;
    for (;;) {
      const eol = buf.indexOf(0x0a, at);
      if (eol < 0) break;
      let head: Partial<Received> & { deleted?: string };
      try {
        head = JSON.parse(buf.toString('utf8', at, eol));
      } catch {
        break;
      }
      const size = head.size ?? 0;
      if (eol + 1 + size > buf.length) break;
      if (head.deleted) this.received.delete(head.deleted);
      else if (typeof head.id === 'string' && isId(head.id) && !this.messages.has(head.id) && head.envelope) {
        this.received.set(head.id, { ...(head as Received), received: true, at: eol + 1, size });
        this.seq = Math.max(this.seq, head.seq ?? 0);
      }
      at = eol + 1 + size;
    }
    if (at < buf.length) ftruncateSync(this.journal, at);
    this.journalSize = at;
    if (!this.received.size) this.emptyJournal();
  }

  /** Appends one record in one write (a partial write, which a file rarely makes, is finished). */
  private append(head: object, raw?: Buffer): number {
    const line = Buffer.from(`${JSON.stringify(head)}\n`);
    const total = line.length + (raw?.length ?? 0);
    let done = writevSync(this.journal, raw ? [line, raw] : [line]);
    while (done < total) {
      const rest = Buffer.concat(raw ? [line, raw] : [line]).subarray(done);
      done += writeSync(this.journal, rest);
    }
    const at = this.journalSize + line.length;
    this.journalSize += total;
    return at;
  }

  private emptyJournal() {
    if (!this.journalSize) return;
    ftruncateSync(this.journal, 0);
    this.journalSize = 0;
  }

  /** The raw message of a received one, from the journal or its .eml. */
  private receivedRaw(r: Received): Buffer {
    if (r.at === undefined) return readFileSync(this.rawFile(r.id));
    const raw = Buffer.allocUnsafe(r.size ?? 0);
    for (let got = 0; got < raw.length; ) {
      const n = readSync(this.journal, raw, got, raw.length - got, r.at + got);
      if (!n) throw new Error('journal cut short');
      got += n;
    }
    return raw;
  }

  /** Closes the journal (the catcher stopping). */
  close() {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.journal);
  }
  private closed = false;

  add(mail: NewMail): StoredMail {
    const m = this.make(newId(), ++this.seq, new Date().toISOString(), mail);
    if (mail.raw) write(this.rawFile(m.id), mail.raw);
    this.messages.set(m.id, m);
    this.persist(m);
    return m;
  }

  /**
   * A message as it came over SMTP: kept (its envelope, then the raw message, one record of the journal, one
   * write) before the 250 that acknowledges it. A record cut short by a crash mid-write is dropped at start-up.
   */
  receive(raw: Buffer, envelope: Envelope): string {
    const r: Received = { id: newId(), seq: ++this.seq, created: new Date().toISOString(), envelope, received: true };
    r.at = this.append({ ...r, size: raw.length }, raw);
    r.size = raw.length;
    this.received.set(r.id, r);
    return r.id;
  }

  /** Parses every message received and not parsed yet; every read of the mailbox waits for it first. */
  async settle(): Promise<void> {
    while (this.received.size)
      await (this.settling ??= this.parseReceived().finally(() => (this.settling = undefined)));
  }

  private async parseReceived() {
    for (const r of [...this.received.values()]) {
      let mail: NewMail;
      let raw: Buffer;
      try {
        raw = this.receivedRaw(r);
        if (!this.parse) throw new Error('no parser');
        mail = await this.parse(raw, r.envelope);
      } catch {
        this.delete([r.id]); // its file is gone (deleted from disk): nothing left to show
        continue;
      }
      if (!this.received.delete(r.id)) continue; // deleted meanwhile
      const m = this.make(r.id, r.seq, r.created, mail);
      // As it came, then its JSON (what makes it kept: an .eml without one is dropped at start-up, and its
      // record is still in the journal, which is emptied only once every message in it has its JSON).
      if (r.at !== undefined) writeFileSync(this.rawFile(m.id), raw);
      this.messages.set(m.id, m);
      this.persist(m);
      if (!this.received.size) this.emptyJournal();
    }
  }

  private make(id: string, seq: number, created: string, mail: NewMail): StoredMail {
    const m: StoredMail = {
      id,
      seq,
      messageId: mail.messageId ?? `${id}@mail.tend.local`,
      created,
      read: false,
      from: addr(mail.from),
      to: mail.to.map(addr),
      cc: (mail.cc ?? []).map(addr),
      bcc: (mail.bcc ?? []).map(addr),
      replyTo: (mail.replyTo ?? []).map(addr),
      subject: mail.subject ?? '',
      html: mail.html ?? '',
      text: mail.text ?? '',
      tags: [...new Set((mail.tags ?? []).map((t) => t.trim()).filter(Boolean))].sort(),
      size: 0,
      headers: mail.headers ?? {},
      attachments: mail.attachments ?? [],
    };
    m.size = mail.raw ? mail.raw.length : rawSize(m);
    return m;
  }

  private rawFile(id: string) {
    return path.join(this.dir, `${id}.eml`);
  }

  /** Whether the message is kept as it came (one that came over SMTP). */
  hasRaw(m: StoredMail): boolean {
    return existsSync(this.rawFile(m.id));
  }

  /** The message as it came over SMTP, or undefined (one sent over HTTP, or gone). */
  raw(m: StoredMail): Buffer | undefined {
    return this.hasRaw(m) ? readFileSync(this.rawFile(m.id)) : undefined;
  }

  private persist(m: StoredMail) {
    write(path.join(this.dir, `${m.id}.json`), JSON.stringify(m));
  }

  get(id: string): StoredMail | undefined {
    return this.messages.get(id);
  }

  setRead(m: StoredMail, read = true) {
    if (m.read === read) return;
    m.read = read;
    this.persist(m);
  }

  /** Newest first, as Mailpit lists. */
  list(): StoredMail[] {
    return [...this.messages.values()].sort((a, b) => b.seq - a.seq);
  }

  /** Every tag in use, sorted (Mailpit's mailbox-wide `tags`). */
  tags(): string[] {
    return [...new Set([...this.messages.values()].flatMap((m) => m.tags))].sort();
  }

  /** Deletes the given IDs (unknown ones are ignored), or every message. */
  delete(ids?: string[]) {
    for (const id of ids ?? [...this.messages.keys(), ...this.received.keys()]) {
      const r = this.received.get(id);
      if (!this.messages.delete(id) && !this.received.delete(id)) continue;
      rmSync(path.join(this.dir, `${id}.json`), { force: true });
      rmSync(this.rawFile(id), { force: true });
      // Its journal record stays until the journal is emptied: say that it is gone.
      if (r?.at !== undefined && this.received.size) this.append({ deleted: id });
    }
    if (!this.received.size) this.emptyJournal();
  }
}

/** Atomic: a crash never leaves half a file under its name. */
function write(file: string, data: string | Buffer) {
  writeFileSync(`${file}.tmp`, data);
  renameSync(`${file}.tmp`, file);
}

/** One stored file, or undefined when it is unreadable or not a message (never fatal at start-up). */
function load(file: string): StoredMail | Received | undefined {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredMail> & Partial<Received>;
    if (m?.received === true)
      return typeof m.id === 'string' && isId(m.id) && typeof m.seq === 'number' && typeof m.created === 'string'
        ? {
            id: m.id,
            seq: m.seq,
            created: m.created,
            envelope: { from: m.envelope?.from, to: m.envelope?.to ?? [] },
            received: true,
          }
        : undefined;
    if (typeof m?.id !== 'string' || !isId(m.id) || typeof m.created !== 'string' || !m.from || !Array.isArray(m.to))
      return undefined;
    const full: StoredMail = {
      cc: [],
      bcc: [],
      replyTo: [],
      tags: [],
      subject: '',
      html: '',
      text: '',
      read: false,
      messageId: `${m.id}@mail.tend.local`,
      headers: {},
      attachments: [],
      ...m,
      seq: typeof m.seq === 'number' ? m.seq : Date.parse(m.created) || 0,
      size: 0,
    } as StoredMail;
    full.size = typeof m.size === 'number' ? m.size : rawSize(full);
    return full;
  } catch {
    return undefined;
  }
}

/** Roughly the size of the email as raw MIME (Mailpit's `Size` is the raw message's byte length). */
function rawSize(m: StoredMail): number {
  const list = (as: Address[]) => as.map((a) => (a.name ? `"${a.name}" <${a.email}>` : a.email)).join(', ');
  const headers = `From: ${list([m.from])}\r\nTo: ${list(m.to)}\r\nSubject: ${m.subject}\r\nMessage-ID: <${m.messageId}>\r\nDate: ${m.created}\r\nMIME-Version: 1.0\r\n`;
  return (
    Buffer.byteLength(headers) + Buffer.byteLength(m.text) + Buffer.byteLength(m.html) + (m.html && m.text ? 200 : 60)
  );
}

/** The visible text of an HTML body (for snippets, search and the code when there is no text part). */
export function htmlToText(html: string): string {
  return html
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|tr|li|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(
      /&(nbsp|amp|lt|gt|quot|#39|apos);/g,
      (_, e: string) => ({ nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" })[e]!,
    )
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

/** The sign-in code in a message: the first standalone run of 6–10 digits in the text body (the HTML's text when there is none). */
export function codeIn(m: Pick<StoredMail, 'text' | 'html'>): string | undefined {
  const text = m.text.trim() ? m.text : htmlToText(m.html);
  return /(?<![\p{L}\p{N}_])(\d{6,10})(?![\p{L}\p{N}_])/u.exec(text)?.[1];
}

// A message's bodies never change once caught: its snippet is worked out once (Mailpit stores it on
// arrival), not at every listing (a poll lists up to 50, each a pass over its HTML).
const snippets = new WeakMap<Pick<StoredMail, 'text' | 'html'>, string>();

// Mailpit: the snippet is the first 200 characters of the HTML's text (or the text body), then "...".
export function snippetOf(m: Pick<StoredMail, 'text' | 'html'>): string {
  let snippet = snippets.get(m);
  if (snippet !== undefined) return snippet;
  const s = (m.html.trim() ? htmlToText(m.html) : m.text)
    .replace(/\uFEFF/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  snippet = s.length <= 200 ? s : `${s.slice(0, 200)}...`;
  snippets.set(m, snippet);
  return snippet;
}
