// Caught emails, one JSON file each under <dir>/mail, so a restart keeps them.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OutgoingMail } from '../service.ts';

export interface StoredMail {
  id: string;
  messageId: string;
  created: string;
  read: boolean;
  from: { name: string; email: string };
  to: { name: string; email: string }[];
  subject: string;
  html: string;
  text: string;
  tags: string[];
}

// Mailpit IDs are 22-char URL-safe random strings.
const newId = () => randomBytes(16).toString('base64url').slice(0, 22);

export class MailStore {
  private readonly dir: string;
  private readonly messages = new Map<string, StoredMail>();

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'mail');
    mkdirSync(this.dir, { recursive: true });
    for (const f of readdirSync(this.dir).filter((f) => f.endsWith('.json'))) {
      try {
        const m = JSON.parse(readFileSync(path.join(this.dir, f), 'utf8')) as StoredMail;
        this.messages.set(m.id, m);
      } catch {
        /* a half-written file from a crash: skip it */
      }
    }
  }

  add(mail: OutgoingMail): StoredMail {
    const id = newId();
    const m: StoredMail = {
      id,
      messageId: `${id}@mail.tend.local`,
      created: new Date().toISOString(),
      read: false,
      from: mail.from,
      to: mail.to.map((t) => ({ name: t.name ?? '', email: t.email.toLowerCase() })),
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      tags: mail.tags ?? [],
    };
    this.messages.set(id, m);
    this.persist(m);
    return m;
  }

  private persist(m: StoredMail) {
    const file = path.join(this.dir, `${m.id}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(m));
    renameSync(`${file}.tmp`, file); // atomic: a crash never leaves half a message
  }

  get(id: string): StoredMail | undefined {
    return this.messages.get(id);
  }

  markRead(m: StoredMail) {
    if (m.read) return;
    m.read = true;
    this.persist(m);
  }

  /** Newest first. */
  list(): StoredMail[] {
    return [...this.messages.values()].sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
  }

  delete(ids?: string[]) {
    for (const id of ids ?? [...this.messages.keys()]) {
      if (!this.messages.delete(id)) continue;
      rmSync(path.join(this.dir, `${id}.json`), { force: true });
    }
  }
}

/** The sign-in code in a message: the first standalone run of 6–10 digits in the text body. */
export const codeIn = (text: string) => /(?<![\d])(\d{6,10})(?![\d])/.exec(text)?.[1];

/**
 * Mailpit-style search: `to:`, `from:`, `subject:` terms (values may be quoted) and plain words
 * matched against subject and text; every term must match.
 */
export function search(messages: StoredMail[], query: string): StoredMail[] {
  const terms = [...query.matchAll(/(?:(to|from|subject):)?(?:"([^"]*)"|(\S+))/gi)].map((m) => ({
    field: m[1]?.toLowerCase(),
    value: (m[2] ?? m[3] ?? '').toLowerCase(),
  }));
  return messages.filter((m) =>
    terms.every(({ field, value }) => {
      if (!value) return true;
      if (field === 'to') return m.to.some((t) => t.email.includes(value) || t.name.toLowerCase().includes(value));
      if (field === 'from') return m.from.email.toLowerCase().includes(value) || m.from.name.toLowerCase().includes(value);
      if (field === 'subject') return m.subject.toLowerCase().includes(value);
      return m.subject.toLowerCase().includes(value) || m.text.toLowerCase().includes(value);
    }),
  );
}
