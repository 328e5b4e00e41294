// The sidebar's custom fields (docs/product.md §2.10): shown only when the workspace has fields. The
// form is markup the loader renders (app/components/ticket-fields-form.tsx), a plain form posting to
// /w/:slug/tickets/:number/fields, which comes back here or shows what it refused: the ticket page
// loads no code for it (docs/decisions/006-javascript-budget.md).
import { useLoaderData } from '@remix-run/react';
import type { loader } from './ticket.server.ts';

export function TicketFieldsCard() {
  const { fieldsForm } = useLoaderData<typeof loader>();
  if (!fieldsForm) return null;
  return (
    <div className="card stack" id="fields">
      <h2 className="hd-side-title">Fields</h2>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: markup React rendered on the server from the fields' rows (texts escaped). */}
      <div dangerouslySetInnerHTML={{ __html: fieldsForm }} />
    </div>
  );
}
