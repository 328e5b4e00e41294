// The ticket page's custom fields form as HTML, rendered here so the page's JavaScript carries none of
// it (docs/decisions/006-javascript-budget.md): null when the workspace has no fields.
import { renderToStaticMarkup } from 'react-dom/server';
import { TicketFieldsForm } from '~/components/ticket-fields-form.tsx';
import type { TicketFieldValue } from './ticket-fields.ts';

export function ticketFieldsMarkup(action: string, fields: TicketFieldValue[]): string | null {
  return fields.length ? renderToStaticMarkup(<TicketFieldsForm action={action} fields={fields} />) : null;
}
