// Markup written as text, for the parts of a page that are many and inert (the inbox's rows, a thread's
// messages): React renders an element with `dangerouslySetInnerHTML` as one string, so what costs it work per
// element and prop (docs/decisions/115-rows-as-markup.md) costs one template here, on the server and in the
// browser alike. The text is the bytes React writes for the same elements: values escaped as it escapes text
// and attributes (react-dom's escapeTextForBrowser), nothing between elements.

/** Markup, ready for `dangerouslySetInnerHTML`; inside `html` it goes in as it is. */
export interface Markup {
  __html: string;
}

const SPECIAL = /["&'<>]/;
const ENTITIES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' };

/** `text` as React writes a text node or an attribute's value. */
export function escapeHtml(text: string): string {
  return SPECIAL.test(text) ? text.replace(/["&'<>]/g, (c) => ENTITIES[c]!) : text;
}

type Value = string | number | Markup | null | undefined | false | readonly Value[];

function textOf(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(textOf).join('');
  return (value as Markup).__html;
}

/** Markup from a template: each value escaped (a Markup as it is, a list one after another, nothing for null or false). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += textOf(values[i]) + strings[i + 1]!;
  return { __html: out };
}
