// Mailpit's search language (internal/storage/search.go), the part that makes sense without
// attachments: to:, from:, cc:, bcc:, reply-to:, addressed:, subject:, message-id:, tag:,
// is:read, is:unread, is:tagged, has:attachment, plain words; "quoted phrases"; -term or !term excludes.
import { htmlToText, type Address, type StoredMail } from './store.ts';

// Mailpit: ArgsParser splits on spaces outside double quotes, then drops the quotes.
export function searchTerms(query: string): string[] {
  const terms: string[] = [];
  let current = '';
  let quoted = false;
  const flush = () => {
    const v = current.replaceAll('"', '').trim();
    if (v) terms.push(v);
    current = '';
  };
  for (const ch of query) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && /\s/.test(ch)) flush();
    else current += ch;
  }
  flush();
  return terms;
}

// Mailpit: cleanString lower-cases and turns line breaks, <>",;() into single spaces.
const clean = (s: string) =>
  s
    .replace(/\uFEFF/g, ' ')
    .replace(/[\r\n\t<>",;()]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ')
    .toLowerCase();

const inAddresses = (as: Address[], v: string) =>
  as.some((a) => a.email.toLowerCase().includes(v) || a.name.toLowerCase().includes(v));

/** The text plain words are matched against: the address headers, subject and body. */
function searchText(m: StoredMail): string {
  const list = (as: Address[]) => as.map((a) => `${a.name} ${a.email}`).join(' ');
  const body = m.html.trim() ? htmlToText(m.html) : m.text;
  return clean(`${list([m.from])} ${m.subject} ${list(m.to)} ${list(m.cc)} ${list(m.bcc)} ${list(m.replyTo)} ${body}`);
}

type Test = (m: StoredMail) => boolean;

function termTest(raw: string): Test | undefined {
  let term = raw;
  let exclude = false;
  if (term.length > 1 && (term.startsWith('-') || term.startsWith('!'))) {
    exclude = true;
    term = term.slice(1);
  }
  if (!/[a-zA-Z0-9]/.test(term)) return undefined; // Mailpit ignores terms without a letter or digit
  const lower = term.toLowerCase();
  const prefixed = (p: string) => (lower.startsWith(p) ? clean(term.slice(p.length)) : undefined);
  let test: Test | undefined;
  let v: string | undefined;
  if ((v = prefixed('to:')) !== undefined) test = v ? (m) => inAddresses(m.to, v!) : undefined;
  else if ((v = prefixed('from:')) !== undefined) test = v ? (m) => inAddresses([m.from], v!) : undefined;
  else if ((v = prefixed('cc:')) !== undefined) test = v ? (m) => inAddresses(m.cc, v!) : undefined;
  else if ((v = prefixed('bcc:')) !== undefined) test = v ? (m) => inAddresses(m.bcc, v!) : undefined;
  else if ((v = prefixed('reply-to:')) !== undefined) test = v ? (m) => inAddresses(m.replyTo, v!) : undefined;
  else if ((v = prefixed('addressed:')) !== undefined)
    test = v ? (m) => [[m.from], m.to, m.cc, m.bcc, m.replyTo].some((as) => inAddresses(as, v!)) : undefined;
  else if (lower.startsWith('subject:')) {
    const s = term.slice(8).toLowerCase(); // Mailpit: subject: is not cleaned, only matched case-insensitively
    test = s ? (m) => m.subject.toLowerCase().includes(s) : undefined;
  } else if ((v = prefixed('message-id:')) !== undefined)
    test = v ? (m) => m.messageId.toLowerCase().includes(v!) : undefined;
  else if ((v = prefixed('tag:')) !== undefined)
    test = v ? (m) => m.tags.some((t) => t.toLowerCase() === v) : undefined;
  else if (lower === 'is:read') test = (m) => m.read;
  else if (lower === 'is:unread') test = (m) => !m.read;
  else if (lower === 'is:tagged') test = (m) => m.tags.length > 0;
  else if (/^has:(attachments?|inlines?)$/.test(lower))
    test = () => false; // nothing here carries attachments
  else {
    const word = clean(term);
    test = word ? (m) => searchText(m).includes(word) : undefined;
  }
  if (!test) return undefined;
  return exclude ? (m) => !test!(m) : test;
}

/** The messages (newest first, as given) matching every term of a Mailpit search query. */
export function search(messages: StoredMail[], query: string): StoredMail[] {
  const tests = searchTerms(query)
    .map(termTest)
    .filter((t): t is Test => !!t);
  return messages.filter((m) => tests.every((t) => t(m)));
}
