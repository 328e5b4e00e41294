// Caught emails, one JSON file each under <dir>/mail, loaded on start so a restart keeps them; a
// message that came over SMTP also as it came (<id>.eml), written before its JSON. A message taken over
// SMTP is kept as it came, with a JSON of its envelope, and parsed when the API or the inbox first reads
// the mailbox (`settle`): an SMTP relay stores what it is handed; reading is the reader's work
// (docs/decisions/101-notification-emails-in-batches.md).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** A message taken over SMTP and not parsed yet: what its JSON holds until then. */
interface Received {
  id: string;
  seq: number;
  created: string;
  envelope: Envelope;
  received: true;
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
  }

  add(mail: NewMail): StoredMail {
    const m = this.make(newId(), ++this.seq, new Date().toISOString(), mail);
    if (mail.raw) write(this.rawFile(m.id), mail.raw);
    this.messages.set(m.id, m);
    this.persist(m);
    return m;
  }

  /**
   * A message as it came over SMTP: kept (raw, then its envelope) before the 250 that acknowledges it. The raw
   * message is written in place: its JSON, written whole after it, is what makes it kept (one without is
   * dropped at start-up), so a crash mid-write leaves nothing that counts.
   */
  receive(raw: Buffer, envelope: Envelope): string {
    const r: Received = { id: newId(), seq: ++this.seq, created: new Date().toISOString(), envelope, received: true };
    writeFileSync(this.rawFile(r.id), raw);
    write(path.join(this.dir, `${r.id}.json`), JSON.stringify(r));
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
      try {
        const raw = readFileSync(this.rawFile(r.id));
        if (!this.parse) throw new Error('no parser');
        mail = await this.parse(raw, r.envelope);
      } catch {
        this.delete([r.id]); // its file is gone (deleted from disk): nothing left to show
        continue;
      }
      if (!this.received.delete(r.id)) continue; // deleted meanwhile
      const m = this.make(r.id, r.seq, r.created, mail);
      this.messages.set(m.id, m);
      this.persist(m);
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
      if (!this.messages.delete(id) && !this.received.delete(id)) continue;
      rmSync(path.join(this.dir, `${id}.json`), { force: true });
      rmSync(this.rawFile(id), { force: true });
    }
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
