// Markdown (and HTML from outside) as HTML that is safe to put in a page: the one renderer and
// sanitiser, shared with the emails (supabase/functions/_shared/markdown.ts). Here: articles remembered
// once rendered.
import { type RenderOptions, renderMarkdown } from '../../../supabase/functions/_shared/markdown.ts';

export {
  type FileRef,
  markdownToText,
  type RenderOptions,
  renderMarkdown,
  sanitizeHtml,
} from '../../../supabase/functions/_shared/markdown.ts';

// Rendered articles by a key that changes with the text (its id and updated_at): a page view renders
// nothing it rendered before. At most CACHE_MAX, the least recently used leaving first.
const CACHE_MAX = 500;
const cache = new Map<string, string>();

/** renderMarkdown, remembered under `key` (which must change whenever `markdown` or the options do). */
export function renderMarkdownCached(key: string, markdown: string, options: RenderOptions = {}): string {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const html = renderMarkdown(markdown, options);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, html);
  return html;
}
