/** @jsxRuntime automatic */
/** @jsxImportSource react */
// Tend's emails as HTML, built from react-email's components (table layout, inline styles) and rendered
// on the server with React's renderToStaticMarkup: by `notify` in Deno (the import map in
// supabase/functions/import_map.json pins the same versions as package.json) and by the app for the
// email settings' preview (docs/decisions/047-emails-that-carry-the-conversation.md). One layout for
// every email: the workspace's brand (logo or name, accent colour, footer), then what the email is
// about. Message bodies arrive as HTML from the one sanitiser (message-html.ts); everything else is text,
// which React escapes. Dark-mode safe: every block sets its own background and colour (clients that
// invert colours invert them together), and Apple Mail gets dark colours from a media query.
import { Body } from '@react-email/body';
import { Button } from '@react-email/button';
import { Column } from '@react-email/column';
import { Container } from '@react-email/container';
import { Head } from '@react-email/head';
import { Hr } from '@react-email/hr';
import { Html } from '@react-email/html';
import { Img } from '@react-email/img';
import { Link } from '@react-email/link';
import { Preview } from '@react-email/preview';
import { Row } from '@react-email/row';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import { type CSSProperties, createElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { SURVEY_ANSWERS, type SurveyRating } from './survey.ts';

export interface Brand {
  /** The sender's name: the workspace's, or the one its admins chose. */
  name: string;
  /** #rrggbb */
  accent: string;
  /** The logo's public URL, if there is one. */
  logoUrl: string | null;
  footer: string | null;
}

export interface EmailMessage {
  author: string;
  /** When, as the reader's workspace says it ("27 Nov 2026, 13:05"). */
  when: string;
  /** Sanitised HTML (message-html.ts). */
  html: string;
  /** The text as written, for the text part. */
  text: string;
  /** The team's side of the conversation (an agent) or the customer's. */
  fromTeam: boolean;
}

export interface EmailFile {
  name: string;
  size: string;
  /** A link for a file that didn't go with the email (over the size limit); else it is attached. */
  url?: string;
}

export interface ThreadEmailProps {
  brand: Brand;
  /** "Ann Lee replied to your request": the email's first line, and the inbox's preview. */
  heading: string;
  ticket: { number: number; subject: string; status: string };
  /** The message the email is about, on top. */
  message: EmailMessage;
  files: EmailFile[];
  /** Under the files: how long the links of those not attached work. */
  filesNote?: string;
  /** Earlier public messages, newest first (at most 5). */
  earlier: EmailMessage[];
  /** The button; under it a note, and a plain link that works longer than the button's (if any). None for
   * someone outside the team and the request (a forward's recipient). */
  button?: { label: string; url: string; note?: string; link?: string };
  /** The earlier messages' title: "Earlier in this conversation", or "Forwarded messages". */
  earlierTitle?: string;
  /** Under the button: how to answer ("Reply to this email to answer."). */
  answer: string;
  /** The last lines: why this email came, and what to do about it. */
  fine: ReactNode;
}

const FONT = "-apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const TEXT = '#1b1f27';
const MUTED = '#4a5160';
const PAGE = '#f4f5f7';
const CARD = '#ffffff';
const LINE = '#e3e6eb';

// A paragraph of every thread email, as react-email's Text writes it (a <p> with its font size, line height and
// default margins over the given style), its style worked out once here: Text works it out at every render, a third
// of a thread email's render in notify (docs/decisions/114-rules-email-and-profiles.md). The same bytes: the style
// is Text's own, from its render function.
const textStyle = (style: CSSProperties): CSSProperties =>
  (Text as unknown as { render(props: object, ref: null): { props: { style: CSSProperties } } }).render({ style }, null)
    .props.style;
const SMALL = { margin: 0, fontSize: 13, color: MUTED, lineHeight: '1.5' };
const P = {
  author: textStyle({ margin: 0, fontFamily: FONT, fontSize: 15, fontWeight: 600, color: TEXT }),
  when: textStyle({ margin: 0, fontFamily: FONT, fontSize: 13, color: MUTED }),
  small: textStyle(SMALL),
  subject: textStyle({ margin: '4px 0 16px', fontSize: 18, fontWeight: 700, color: TEXT }),
  heading: textStyle({ ...SMALL, margin: '0 0 16px' }),
  title: textStyle({ ...SMALL, fontWeight: 600 }),
  file: textStyle({ margin: '4px 0 0', fontSize: 14, color: TEXT }),
  filesNote: textStyle({ ...SMALL, marginTop: 4 }),
  note: textStyle({ ...SMALL, marginTop: 8 }),
};

// Apple Mail and iOS Mail honour prefers-color-scheme; the classes below only exist for it.
const DARK = `
  :root { color-scheme: light dark; supported-color-schemes: light dark; }
  @media (prefers-color-scheme: dark) {
    .t-page { background: #111318 !important; }
    .t-card { background: #1c1f26 !important; border-color: #2d323c !important; }
    .t-text { color: #e6e8ec !important; }
    .t-muted { color: #aab0bb !important; }
    .t-quote { border-color: #3a404b !important; }
  }
`;

/** Up to two letters of a name: "Ann Lee" → "AL", "casey@example.test" → "C". */
export function initials(name: string): string {
  const words = name
    .replace(/@.*$/, '')
    .split(/[\s._-]+/)
    .filter(Boolean);
  return (
    words
      .slice(0, 2)
      .map((w) => [...w][0]?.toUpperCase() ?? '')
      .join('') || '?'
  );
}

function Avatar({ name, accent }: { name: string; accent: string }) {
  return (
    <table role="presentation" cellPadding={0} cellSpacing={0} style={{ borderCollapse: 'collapse' }}>
      <tbody>
        <tr>
          <td
            style={{
              width: 36,
              height: 36,
              borderRadius: 18,
              background: accent,
              color: '#ffffff',
              fontFamily: FONT,
              fontSize: 14,
              fontWeight: 700,
              lineHeight: '36px',
              textAlign: 'center',
            }}
          >
            {initials(name)}
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** One message: the author's initials, name and time, then its text. */
function Message({ m, accent, quoted }: { m: EmailMessage; accent: string; quoted: boolean }) {
  return (
    <Section style={{ marginTop: quoted ? 16 : 0 }}>
      <Row>
        <Column style={{ width: 48, verticalAlign: 'top' }}>
          <Avatar name={m.author} accent={m.fromTeam ? accent : '#6b7280'} />
        </Column>
        <Column style={{ verticalAlign: 'top' }}>
          <p className="t-text" style={P.author}>
            {m.author}
          </p>
          <p className="t-muted" style={P.when}>
            {m.when}
          </p>
        </Column>
      </Row>
      <div
        className="t-text"
        style={{
          fontFamily: FONT,
          fontSize: quoted ? 14 : 16,
          lineHeight: '1.55',
          color: quoted ? MUTED : TEXT,
          marginTop: 8,
          overflowWrap: 'anywhere',
        }}
        // The one sanitiser's output (message-html.ts): no script, style, event handler or foreign URL.
        // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised HTML of a message
        dangerouslySetInnerHTML={{ __html: m.html }}
      />
    </Section>
  );
}

/** The frame of every email: the brand on top, a white card, the footer. */
function Layout({ brand, preheader, children }: { brand: Brand; preheader: string; children: ReactNode }) {
  return (
    <Frame brand={brand} preview={<Preview>{preheader}</Preview>}>
      {children}
    </Frame>
  );
}

/** Layout with its preview (the inbox's line under the subject) given as markup. */
function Frame({ brand, preview, children }: { brand: Brand; preview: ReactNode; children: ReactNode }) {
  return (
    <Html lang="en">
      <Head>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <style>{DARK}</style>
      </Head>
      {preview}
      {/* Long addresses and links wrap anywhere: a table is as wide as its widest unbreakable word. */}
      <Body
        className="t-page"
        style={{ margin: 0, padding: '24px 8px', background: PAGE, fontFamily: FONT, overflowWrap: 'anywhere' }}
      >
        <Container style={{ maxWidth: 600, width: '100%' }}>
          <Section style={{ padding: '0 8px 16px' }}>
            {brand.logoUrl ? (
              <Img
                src={brand.logoUrl}
                alt={brand.name}
                height={40}
                style={{ height: 40, width: 'auto', maxWidth: 240 }}
              />
            ) : (
              <Text className="t-text" style={{ margin: 0, fontSize: 20, fontWeight: 700, color: TEXT }}>
                {brand.name}
              </Text>
            )}
          </Section>
          <Section
            className="t-card"
            style={{
              background: CARD,
              border: `1px solid ${LINE}`,
              borderTop: `4px solid ${brand.accent}`,
              borderRadius: 10,
              padding: '24px 20px',
            }}
          >
            {children}
          </Section>
          {brand.footer ? (
            <Text
              className="t-muted"
              style={{ margin: '16px 8px 0', fontSize: 13, lineHeight: '1.5', color: MUTED, whiteSpace: 'pre-line' }}
            >
              {brand.footer}
            </Text>
          ) : null}
        </Container>
      </Body>
    </Html>
  );
}

/** A reply, a new request, a forwarded message: the message on top, then the conversation so far. */
export function ThreadEmail(p: ThreadEmailProps) {
  return (
    <Layout brand={p.brand} preheader={p.heading}>
      <ThreadCard {...p} />
    </Layout>
  );
}

// renderThreadEmail: the frame (Frame, all but the preview and the card) is the brand's alone, so it is
// rendered once per brand and each email renders only its preview and card into it: the same bytes as
// renderEmail(<ThreadEmail>) (tests/unit/email-layout.test.ts), about half the render's CPU in notify, which
// renders one a notification (docs/decisions/111-cheaper-notification-emails.md).
const HOLE = '<tend-hole></tend-hole>';
const frames = new Map<string, string[]>();
function frameOf(brand: Brand): string[] {
  const key = JSON.stringify(brand);
  let parts = frames.get(key);
  if (!parts) {
    if (frames.size >= 100) frames.clear(); // a worker sends for a few workspaces' brands at a time
    const hole = createElement('tend-hole');
    parts = renderEmail(
      <Frame brand={brand} preview={hole}>
        {hole}
      </Frame>,
    ).split(HOLE);
    if (parts.length !== 3) throw new Error('an email frame with its holes out of place');
    frames.set(key, parts);
  }
  return parts;
}

/** renderEmail(<ThreadEmail {...p} />), the brand's frame rendered once. */
export function renderThreadEmail(p: ThreadEmailProps): string {
  const [head, middle, tail] = frameOf(p.brand);
  return (
    head +
    renderToStaticMarkup(<Preview>{p.heading}</Preview>) +
    middle +
    renderToStaticMarkup(<ThreadCard {...p} />) +
    tail
  );
}

/** What a thread email's card holds. */
function ThreadCard(p: ThreadEmailProps) {
  const { brand } = p;
  return (
    <>
      <p className="t-muted" style={P.small}>
        Request #{p.ticket.number} · {p.ticket.status}
      </p>
      <p className="t-text" style={P.subject}>
        {p.ticket.subject}
      </p>
      <p className="t-muted" style={P.heading}>
        {p.heading}
      </p>
      <Message m={p.message} accent={brand.accent} quoted={false} />
      {p.files.length ? (
        <Section style={{ marginTop: 16 }}>
          <p className="t-muted" style={P.title}>
            {p.files.length === 1 ? 'File' : `${p.files.length} files`}
          </p>
          {p.files.map((f) => (
            <p key={f.name} className="t-text" style={P.file}>
              {f.url ? (
                <Link href={f.url} style={{ color: brand.accent }}>
                  {f.name}
                </Link>
              ) : (
                f.name
              )}{' '}
              <span className="t-muted" style={{ color: MUTED }}>
                ({f.size}
                {f.url ? ', link' : ', attached'})
              </span>
            </p>
          ))}
          {p.filesNote ? (
            <p className="t-muted" style={P.filesNote}>
              {p.filesNote}
            </p>
          ) : null}
        </Section>
      ) : null}
      <Section style={{ marginTop: 24 }}>
        {p.button ? (
          <Button
            href={p.button.url}
            style={{
              background: brand.accent,
              color: '#ffffff',
              borderRadius: 8,
              padding: '12px 20px',
              fontSize: 16,
              fontWeight: 600,
              fontFamily: FONT,
            }}
          >
            {p.button.label}
          </Button>
        ) : null}
        {p.button?.note || p.button?.link ? (
          <p className="t-muted" style={P.note}>
            {p.button?.note}{' '}
            {p.button?.link ? (
              <Link href={p.button.link} style={{ color: brand.accent }}>
                {p.button.link}
              </Link>
            ) : null}
          </p>
        ) : null}
        <p className="t-muted" style={P.note}>
          {p.answer}
        </p>
      </Section>
      {p.earlier.length ? (
        <Section style={{ marginTop: 24 }}>
          <Hr style={{ borderColor: LINE, margin: '0 0 16px' }} />
          <p className="t-muted" style={P.title}>
            {p.earlierTitle ?? 'Earlier in this conversation'}
          </p>
          {/* A quote: Gmail folds it behind "…", as it folds quoted history. */}
          <div
            className="gmail_quote t-quote"
            style={{ borderLeft: `3px solid ${LINE}`, paddingLeft: 12, marginTop: 8 }}
          >
            {p.earlier.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the messages' order is fixed
              <Message key={i} m={m} accent={brand.accent} quoted />
            ))}
          </div>
        </Section>
      ) : null}
      <Hr style={{ borderColor: LINE, margin: '24px 0 12px' }} />
      <p className="t-muted" style={P.small}>
        {p.fine}
      </p>
    </>
  );
}

/** The text part of a thread email: the same content, quoted history with "> ", files named. */
export function threadEmailText(p: Omit<ThreadEmailProps, 'brand' | 'fine'> & { brand: Brand; fine: string }): string {
  const quote = (text: string) =>
    text
      .split('\n')
      .map((l) => (l ? `> ${l}` : '>'))
      .join('\n');
  const files = p.files.map((f) => `- ${f.name} (${f.size}${f.url ? `): ${f.url}` : ', attached)'}`);
  return [
    `${p.heading}`,
    `Request #${p.ticket.number} "${p.ticket.subject}" (${p.ticket.status})`,
    '',
    `${p.message.author}, ${p.message.when}:`,
    '',
    p.message.text,
    ...(files.length ? ['', p.files.length === 1 ? 'File:' : 'Files:', ...files] : []),
    ...(p.filesNote ? [p.filesNote] : []),
    ...(p.button
      ? [
          '',
          `${p.button.label}: ${p.button.url}`,
          ...(p.button.note ? [p.button.note] : []),
          ...(p.button.link ? [p.button.link] : []),
        ]
      : []),
    '',
    p.answer,
    ...(p.earlier.length
      ? [
          '',
          `--- ${p.earlierTitle ?? 'Earlier in this conversation'} ---`,
          ...p.earlier.flatMap((m) => ['', `${m.author}, ${m.when}:`, quote(m.text)]),
        ]
      : []),
    '',
    '--',
    p.fine,
    ...(p.brand.footer ? ['', p.brand.footer] : []),
  ].join('\n');
}

export interface DigestProps {
  brand: Brand;
  heading: string;
  items: { line: string; url: string }[];
  settingsUrl: string;
}

/** A member's daily digest: one line per notification, each a link to its ticket. */
export function DigestEmail(p: DigestProps) {
  return (
    <Layout brand={p.brand} preheader={p.heading}>
      <Text className="t-text" style={{ margin: '0 0 12px', fontSize: 16, fontWeight: 600, color: TEXT }}>
        {p.heading}
      </Text>
      {p.items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: one line per notification, in order
        <Text key={i} style={{ margin: '8px 0 0', fontSize: 15, lineHeight: '1.5' }}>
          <Link href={item.url} style={{ color: p.brand.accent }}>
            {item.line}
          </Link>
        </Text>
      ))}
      <Hr style={{ borderColor: LINE, margin: '24px 0 12px' }} />
      <Text className="t-muted" style={{ margin: 0, fontSize: 13, color: MUTED }}>
        Choose what you hear of, and how: <Link href={p.settingsUrl}>notification settings</Link>.
      </Text>
    </Layout>
  );
}

/** The email as a document, with the doctype email clients expect (react-email's render adds the same). */
export function renderEmail(element: ReactNode): string {
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">${renderToStaticMarkup(
    element as never,
  )}`;
}

export interface SurveyEmailProps {
  brand: Brand;
  ticket: { number: number; subject: string; status: string };
  /** The workspace's question ("How did we do?"). */
  question: string;
  /** Each answer's one-click link. */
  links: Record<SurveyRating, string>;
  days: number;
  fine: string;
}

/** The satisfaction survey of a solved request: the question and three one-click answers. */
export function SurveyEmail(p: SurveyEmailProps) {
  const { brand } = p;
  const small = { margin: 0, fontSize: 13, color: MUTED, lineHeight: '1.5' };
  return (
    <Layout brand={brand} preheader={p.question}>
      <Text className="t-muted" style={small}>
        Request #{p.ticket.number} · {p.ticket.status}
      </Text>
      <Text className="t-text" style={{ margin: '4px 0 16px', fontSize: 18, fontWeight: 700, color: TEXT }}>
        {p.ticket.subject}
      </Text>
      <Text className="t-text" style={{ margin: '0 0 16px', fontSize: 16, fontWeight: 600, color: TEXT }}>
        {p.question}
      </Text>
      <Section>
        {SURVEY_ANSWERS.map((a) => (
          <Button
            key={a.rating}
            href={p.links[a.rating]}
            style={{
              background: a.rating === 'good' ? brand.accent : CARD,
              color: a.rating === 'good' ? '#ffffff' : brand.accent,
              border: `2px solid ${brand.accent}`,
              borderRadius: 8,
              padding: '10px 18px',
              margin: '0 8px 8px 0',
              fontSize: 16,
              fontWeight: 600,
              fontFamily: FONT,
            }}
          >
            {a.label}
          </Button>
        ))}
      </Section>
      <Text className="t-muted" style={{ ...small, marginTop: 8 }}>
        One click records your answer; you can add a comment on the page it opens, and change your answer for {p.days}{' '}
        days.
      </Text>
      <Hr style={{ borderColor: LINE, margin: '24px 0 12px' }} />
      <p className="t-muted" style={P.small}>
        {p.fine}
      </p>
    </Layout>
  );
}

/** The text part of a survey email. */
export function surveyEmailText(p: SurveyEmailProps): string {
  return [
    p.question,
    `Request #${p.ticket.number} "${p.ticket.subject}" (${p.ticket.status})`,
    '',
    ...SURVEY_ANSWERS.map((a) => `${a.label}: ${p.links[a.rating]}`),
    '',
    `One click records your answer; you can add a comment on the page it opens, and change your answer for ${p.days} days.`,
    '',
    '--',
    p.fine,
    ...(p.brand.footer ? ['', p.brand.footer] : []),
  ].join('\n');
}
