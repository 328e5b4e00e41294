// A message's body as HTML and as text, for a page (the agent's and the portal's threads) and for an
// email (with the inline styles email clients need: they drop <style> blocks unevenly). The team writes
// Markdown (the composer); what a requester writes, typed or emailed, is shown as written. Both go
// through the one sanitiser (markdown.ts). Plain TypeScript: the app and notify run it.
import { type FileRef, markdownToText, renderMarkdown } from './markdown.ts';

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Plain text as HTML paragraphs (a blank line between them), each line break kept. */
const paragraphs = (text: string) =>
  text
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');

/**
 * Whether a message's body is Markdown: everyone's but the customers' of its thread — its requester and
 * followers (docs/decisions/064-followers.md), whose text shows as written (agents write in the composer;
 * the outside party of a forward answers by email, which reads the same as Markdown with its line breaks
 * kept). docs/decisions/056-rich-replies-one-sanitiser.md.
 */
export const isMarkdownMessage = (authorId: string, customers: readonly string[]) => !customers.includes(authorId);

export interface MessageBody {
  body: string;
  markdown: boolean;
  /** The message's files by name, for `attachment:<name>` in its Markdown. */
  files?: (name: string) => FileRef | null;
}

/** The body as sanitised HTML, line breaks kept as typed. */
export function messageHtml({ body, markdown, files }: MessageBody): string {
  return markdown ? renderMarkdown(body, { breaks: true, files }) : paragraphs(body);
}

/** The body as text: Markdown's marks taken out, the rest as written. */
export function messageText({ body, markdown, files }: MessageBody): string {
  return markdown ? markdownToText(body, { breaks: true, files }) : body;
}

// Each tag the sanitiser lets through, as email clients need it styled (inline).
const EMAIL_STYLES: Record<string, string> = {
  p: 'margin:0 0 12px',
  blockquote: 'margin:0 0 12px;padding:0 0 0 12px;border-left:3px solid #d0d7de;color:#57606a',
  pre: 'margin:0 0 12px;padding:8px 12px;background:#f6f8fa;color:#1f2328;border-radius:4px;white-space:pre-wrap;font-family:Menlo,Consolas,monospace;font-size:13px',
  code: 'font-family:Menlo,Consolas,monospace;font-size:90%',
  ul: 'margin:0 0 12px;padding-left:24px',
  ol: 'margin:0 0 12px;padding-left:24px',
  img: 'max-width:100%;height:auto;border:0',
  h2: 'margin:16px 0 8px;font-size:18px',
  h3: 'margin:16px 0 8px;font-size:16px',
};

/** The body as an email's HTML: messageHtml with each element's style inline. */
export function messageEmailHtml(message: MessageBody): string {
  // The sanitiser's output holds no style attribute on these tags.
  return messageHtml(message).replace(
    /<(p|blockquote|pre|code|ul|ol|img|h2|h3)(?=[\s>/])/g,
    (_, tag) => `<${tag} style="${EMAIL_STYLES[tag]}"`,
  );
}

/** Plain text as an email's HTML paragraphs. */
export const textToHtml = (text: string) => messageEmailHtml({ body: text, markdown: false });
