// A ticket's custom fields on a page of their own (members only,
// docs/product.md#customers-companies-and-ticket-fields): where the sidebar's "Save fields" posts. Saved: back to the
// ticket. Refused (a value that doesn't fit its field): this page, with what was typed kept and the message at the
// field, with JavaScript or without.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { TicketFieldsForm } from '~/components/ticket-fields-form.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { FieldValuesSchema, readFieldValues } from '~/lib/forms/customer-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import { fieldInputName, type TicketFieldValue } from '~/lib/helpdesk/ticket-fields.ts';
import { parseNumber, parseSlug, requireMemberTicket } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Fields of #${data.number} · Tend` : 'Ticket fields · Tend' },
  { name: 'description', content: 'A ticket’s custom fields.' },
];

async function ticketFields(request: Request, supabase: Supabase, slug: string, number: number) {
  const { data, error } = await supabase.rpc('ticket_field_list', { p_slug: slug, p_number: number }, { get: true });
  if (error) throwDbError(request, error, 'ticket fields');
  return jsonPage<TicketFieldValue[]>(data);
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  await requireMemberTicket(request, supabase, user.id, slug, params.number);
  return dataWithSession(request, { slug, number, fields: await ticketFields(request, supabase, slug, number) });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const form = await readFormData(request);
  const fields = await ticketFields(request, supabase, slug, number);
  const submission = parseSubmission(form, FieldValuesSchema);
  const { values, errors } = readFieldValues(form, fields);
  if (Object.keys(errors).length)
    return dataWithSession(request, { result: submission.reply({ fieldErrors: errors }) }, { status: 400 });
  const { error } = await supabase.rpc('set_ticket_fields', { p_ticket_id: ticket.id, p_values: values });
  if (error) {
    const mapped = mapDbError(error, 'set ticket fields');
    // A refusal that names a field (field_value_invalid: its label) goes to that field.
    const field = fields.find((f) => f.label === mapped.details);
    const result = submission.reply(
      field ? { fieldErrors: { [fieldInputName(field.id)]: [mapped.message] } } : { formErrors: [mapped.message] },
    );
    return dataWithSession(request, { result }, { status: mapped.status });
  }
  return redirectWithSession(request, `/w/${slug}/tickets/${number}#fields`);
}

export default function TicketFieldsPage() {
  const { slug, number, fields } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <section className="stack-lg" aria-labelledby="ticket-fields-title">
      <div>
        <p className="eyebrow">
          <Link to={`/w/${slug}/tickets/${number}`}>Back to #{number}</Link>
        </p>
        <h1 id="ticket-fields-title">Fields of #{number}</h1>
      </div>
      <div className="card stack">
        {fields.length ? (
          <TicketFieldsForm action={`/w/${slug}/tickets/${number}/fields`} fields={fields} result={answer?.result} />
        ) : (
          <p className="muted">This workspace has no ticket fields.</p>
        )}
      </div>
    </section>
  );
}
