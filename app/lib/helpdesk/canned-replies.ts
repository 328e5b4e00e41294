// Canned replies' placeholders (docs/product.md#canned-replies-in-the-composer): {{requester.name}} and co. are filled
// here and nowhere else, on the server, for the ticket page's picker (which inserts the filled text as it is)
// and for the settings page's preview. A name that is not a placeholder is refused when the reply is
// saved (placeholder_unknown; the database's check says the same), so it can only be here if the list
// shrank: it is then left as typed.

export {
  fillPlaceholders,
  PLACEHOLDERS,
  type Placeholder,
  type PlaceholderValues,
  placeholderValues,
  unknownPlaceholders,
} from '../../../supabase/functions/_shared/placeholders.ts';
import type { Placeholder } from '../../../supabase/functions/_shared/placeholders.ts';

/** A canned reply as the composer's picker gets it: filled in for the ticket. */
export interface PickerReply {
  id: string;
  title: string;
  text: string;
}

/** What each placeholder becomes, for the settings page. */
export const PLACEHOLDER_HELP: Record<Placeholder, string> = {
  'requester.name': "the requester's name (or the start of their email address)",
  'requester.email': "the requester's email address",
  'agent.name': 'your name, as the agent who inserts the reply',
  'ticket.number': 'the ticket number, without the #',
  'ticket.subject': "the ticket's subject",
  'workspace.name': "the workspace's name",
};

/**
 * The composer's text after inserting a reply without JavaScript: what was typed, kept, then the reply
 * after a blank line (the reply alone when nothing was typed).
 */
export function appendToDraft(draft: string, text: string): string {
  const kept = draft.replace(/\s+$/, '');
  return kept ? `${kept}\n\n${text}` : text;
}
