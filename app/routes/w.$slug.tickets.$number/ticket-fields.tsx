// The sidebar's custom fields (docs/product.md §2.6): shown only when the workspace has fields, saved to
// /w/:slug/tickets/:number/fields, which comes back here or shows what it refused.
import { useLoaderData } from '@remix-run/react';
import { TicketFieldsForm } from '~/components/ticket-fields-form.tsx';
import type { loader } from './ticket.server.ts';

export function TicketFieldsCard() {
  const { workspace, ticket, fields } = useLoaderData<typeof loader>();
  if (!fields.length) return null;
  return (
    <div className="card stack" id="fields">
      <h2 className="hd-side-title">Fields</h2>
      <TicketFieldsForm action={`/w/${workspace.slug}/tickets/${ticket.number}/fields`} fields={fields} />
    </div>
  );
}
