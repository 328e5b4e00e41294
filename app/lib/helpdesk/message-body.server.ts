// A message of a thread as its page shows it: the body as sanitised HTML (the one sanitiser,
// supabase/functions/_shared/markdown.ts), its images shown and its files linked from the page's file
// route by name (`attachment:<name>` in the team's Markdown). Server-only: no Markdown code in a browser.
import { isMarkdownMessage, messageHtml } from '../../../supabase/functions/_shared/message-html.ts';
import { type AttachmentView, isImageType } from './attachments.ts';

/**
 * `customers`: the thread's requester and followers, whose text shows as written (isMarkdownMessage);
 * `filesPath`: the page's file route, `…/files/` (the attachment id follows).
 */
export function threadHtml(
  m: { body: string; author_id: string; attachments?: AttachmentView[] | null },
  customers: readonly string[],
  filesPath: string,
): string {
  return messageHtml({
    body: m.body,
    markdown: isMarkdownMessage(m.author_id, customers),
    files: (name) => {
      const file = m.attachments?.find((f) => f.file_name === name);
      if (!file) return null;
      const url = `${filesPath}${file.id}`;
      return { src: isImageType(file.mime_type) ? url : undefined, href: url };
    },
  });
}
