// A message of a thread as its page shows it: the body as sanitised HTML (the one sanitiser,
// supabase/functions/_shared/markdown.ts), its images shown and its files linked from the page's file
// route by name (`attachment:<name>` in the team's Markdown). Server-only: no Markdown code in a browser.
import { isMarkdownMessage, messageHtml } from '../../../supabase/functions/_shared/message-html.ts';
import { type AttachmentView, isImageType } from './attachments.ts';

/**
 * Rendered Markdown, kept by everything the HTML depends on (the body, and where the message's files
 * are linked when it names any): a thread is rendered again on every view of its page (each agent who
 * opens it, each live reload after a reply), and Markdown with the sanitiser after it was the largest
 * share of the ticket page's own CPU (docs/decisions/075-page-cpu.md). Least recently used out first,
 * within a size in characters (a body is at most 20 000).
 */
const KEPT_MAX_CHARS = 8 * 1024 * 1024;
const kept = new Map<string, string>();
let keptChars = 0;

function keep(key: string, html: string) {
  kept.set(key, html);
  keptChars += key.length + html.length;
  for (const [oldKey, oldHtml] of kept) {
    if (keptChars <= KEPT_MAX_CHARS) break;
    kept.delete(oldKey);
    keptChars -= oldKey.length + oldHtml.length;
  }
}

/** `attachment:` in any case, as markdown.ts reads it: only then do the files change the HTML. */
const NAMES_A_FILE = /attachment:/i;

/**
 * `customers`: the thread's requester and followers, whose text shows as written (isMarkdownMessage);
 * `filesPath`: the page's file route, `…/files/` (the attachment id follows).
 */
export function threadHtml(
  m: { body: string; author_id: string; attachments?: AttachmentView[] | null },
  customers: readonly string[],
  filesPath: string,
): string {
  const markdown = isMarkdownMessage(m.author_id, customers);
  const render = () =>
    messageHtml({
      body: m.body,
      markdown,
      files: (name) => {
        const file = m.attachments?.find((f) => f.file_name === name);
        if (!file) return null;
        const url = `${filesPath}${file.id}`;
        return { src: isImageType(file.mime_type) ? url : undefined, href: url };
      },
    });
  // Text shown as written is a few string replacements: cheaper to do than to look up.
  if (!markdown) return render();
  const files = NAMES_A_FILE.test(m.body)
    ? JSON.stringify([filesPath, m.attachments?.map((f) => [f.file_name, f.id, isImageType(f.mime_type)]) ?? []])
    : '';
  const key = `${files}\n${m.body}`;
  const hit = kept.get(key);
  if (hit !== undefined) {
    // Most recently used: to the end of the map's order.
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  const html = render();
  keep(key, html);
  return html;
}
