// Tags (docs/product.md#tags): what a tag's name and colour may be, the same rules as the database's
// (supabase/schemas/52_triage.sql; tests/unit/tags.test.ts holds them equal), and the `tag:` words of
// an inbox search.

/** A tag's name: an identifier, so `tag:billing` and `?tag=billing` name it exactly. */
export const TAG_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const TAG_COLOURS = ['grey', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type TagColour = (typeof TAG_COLOURS)[number];
/** At most this many tags in one inbox filter (more are left out). */
export const MAX_FILTER_TAGS = 5;

/** A name as typed, as the database keeps it: trimmed, lower case. */
export const tagName = (typed: string) => typed.trim().toLowerCase();

/** A search split into its words and its `tag:name` words: "refund tag:billing" → "refund", ["billing"]. */
export function searchTags(q: string): { text: string; tags: string[] } {
  const tags: string[] = [];
  const text = q
    .split(/\s+/)
    .filter((word) => {
      const m = /^tag:(.+)$/i.exec(word);
      if (m) tags.push(tagName(m[1]));
      return !m;
    })
    .join(' ');
  return { text, tags };
}
