// The ticket page's custom fields card (its title and form) as HTML, rendered here so the page's
// JavaScript carries none of it (docs/decisions/006-javascript-budget.md): null when the workspace has no
// fields. The sidebar puts it in place as it is (sidebar.tsx).
import { renderToStaticMarkup } from 'react-dom/server';
import { TicketFieldsForm } from '~/components/ticket-fields-form.tsx';
import type { TicketFieldValue } from './ticket-fields.ts';

export function ticketFieldsMarkup(action: string, fields: TicketFieldValue[]): string | null {
  return fields.length
    ? renderToStaticMarkup(
        <div className="card stack" id="fields">
          <h2 className="hd-side-title">Fields</h2>
          <TicketFieldsForm action={action} fields={fields} />
        </div>,
      )
    : null;
}
