// Canned replies' placeholders ({{requester.name}} and co.; docs/product.md#canned-replies-in-the-composer): the list
// and how they are filled, for the app (app/lib/helpdesk/canned-replies.ts: the composer's picker, the settings'
// preview) and notify (the acknowledgement outside business hours). Plain TypeScript, no Deno or Node API.

/** The placeholders, as written between {{ and }}. supabase/schemas/45_canned_replies.sql lists the same. */
export const PLACEHOLDERS = [
  'requester.name',
  'requester.email',
  'agent.name',
  'ticket.number',
  'ticket.subject',
  'workspace.name',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Record<Placeholder, string>;

// {{, anything but braces, }}; the name is what is inside without the spaces around it. The
// database's private.unknown_placeholders reads placeholders the same way.
const PLACEHOLDER_RE = /\{\{([^{}]*)\}\}/g;
const nameOf = (inner: string) => inner.replace(/^ +| +$/g, '');
const isPlaceholder = (name: string): name is Placeholder => (PLACEHOLDERS as readonly string[]).includes(name);

/** The names between {{ }} that are not placeholders, each once, in order of first use. */
export function unknownPlaceholders(body: string): string[] {
  const names = [...body.matchAll(PLACEHOLDER_RE)].map((m) => nameOf(m[1]));
  return [...new Set(names.filter((name) => !isPlaceholder(name)))];
}

/** The body with every placeholder replaced by its value; anything else between {{ }} stays as typed. */
export function fillPlaceholders(body: string, values: PlaceholderValues): string {
  return body.replace(PLACEHOLDER_RE, (whole, inner: string) => {
    const name = nameOf(inner);
    return isPlaceholder(name) ? values[name] : whole;
  });
}

/** The part of an email address before the @ ("" for none). */
function localPart(email: string | null | undefined): string {
  return (email ?? '').split('@')[0].trim();
}

/**
 * The placeholders' values for a ticket. A name that is missing or blank falls back to the start of
 * the person's email address, then to a word that still reads well ("there" in "Hi {{requester.name}},").
 */
export function placeholderValues(facts: {
  requester: { name?: string | null; email?: string | null };
  agent: { name?: string | null; email?: string | null };
  ticket: { number: number; subject: string };
  workspace: { name: string };
}): PlaceholderValues {
  const named = (who: { name?: string | null; email?: string | null }, fallback: string) =>
    who.name?.trim() || localPart(who.email) || fallback;
  return {
    'requester.name': named(facts.requester, 'there'),
    'requester.email': facts.requester.email?.trim() ?? '',
    'agent.name': named(facts.agent, `the ${facts.workspace.name} team`),
    'ticket.number': String(facts.ticket.number),
    'ticket.subject': facts.ticket.subject,
    'workspace.name': facts.workspace.name,
  };
}
