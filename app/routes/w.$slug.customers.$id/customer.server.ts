// The customer page's loader and action (route.tsx): who they are, their tickets here, the team's
// notes about them (add, edit, delete; earlier texts kept with who wrote them), their time zone.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { CustomerSchema } from '~/lib/forms/customer-schemas.server.ts';
import { TIME_ZONES } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { type CustomerPageJson, pageOrThrow } from '~/lib/helpdesk/customers.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { decodeCursor, encodeCursor } from '~/lib/helpdesk/inbox-cursor.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { errorResponse } from '~/lib/http/responses.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

const NOTICES = {
  added: 'Note added.',
  saved: 'Note saved.',
  deleted: 'Note deleted.',
  time_zone: 'Time zone saved.',
} as const;
type Notice = keyof typeof NOTICES;

/** The customer's id from the URL; anything else is a 404. */
function parseCustomerId(request: Request, raw: string | undefined): string {
  if (!raw || !UUID_RE.test(raw)) throw errorResponse(request, 'not_found');
  return raw.toLowerCase();
}

/** "14:05 there (Tue)": the time now in a zone, for an agent deciding when to write. */
function localTime(timeZone: string, now: Date): string | null {
  try {
    const time = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
    }).format(now);
    return `${time} there now`;
  } catch {
    return null;
  }
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const customerId = parseCustomerId(request, params.id);
  const search = new URL(request.url).searchParams;
  const after = decodeCursor(search.get('after'));
  const [answer, zoneOf] = await Promise.all([
    supabase.rpc(
      'customer_page',
      { p_slug: slug, p_customer_id: customerId, ...(after ? { p_after_at: after.at, p_after_id: after.id } : {}) },
      { get: true },
    ),
    viewerZones({ request, context }, supabase),
  ]);
  const page = await pageOrThrow<CustomerPageJson>(request, supabase, slug, 'customer page', answer);
  // My time zone for the page's times; the customer's own is theirs ("14:05 there now").
  const zone = zoneOf(page.workspace.time_zone);
  const when = (iso: string) => formatDateIn(iso, zone);
  const who = (id: string | null) => (id && page.names[id]) || 'a former member';
  const notice = search.get('done');
  const edit = search.get('edit');
  const { customer } = page;
  return dataWithSession(request, {
    workspace: { id: page.workspace.id, slug: page.workspace.slug, name: page.workspace.name },
    adminOf: page.role === 'admin' ? page.workspace.slug : null,
    me: user.id,
    admin: page.role === 'admin',
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    customer: {
      id: customer.user_id,
      name: customer.name,
      email: customer.email,
      company: customer.company,
      companyName: customer.company_name,
      tickets: customer.tickets,
      since: when(customer.created_at),
      timeZone: customer.time_zone,
      localTime: customer.time_zone ? localTime(customer.time_zone, new Date()) : null,
    },
    timeZones: TIME_ZONES,
    tickets: page.tickets.map(({ id: _id, ...t }) => ({ ...t, when: when(t.last_message_at) })),
    later: !!after,
    older: page.older ? encodeCursor(page.older) : null,
    editing: page.notes.some((n) => n.id === edit) ? edit : null,
    notes: page.notes.map((n) => ({
      id: n.id,
      body: n.body,
      mine: n.created_by === user.id,
      written: `${who(n.created_by)}, ${when(n.created_at)}`,
      edited: n.updated_at ? `edited by ${who(n.updated_by)}, ${when(n.updated_at)}` : null,
      versions: n.versions.map((v) => ({ body: v.body, written: `${who(v.written_by)}, ${when(v.written_at)}` })),
    })),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const customerId = parseCustomerId(request, params.id);
  // Membership and the customer, as the page checks them (404 for anyone else).
  const page = await pageOrThrow<CustomerPageJson>(
    request,
    supabase,
    slug,
    'customer page',
    await supabase.rpc('customer_page', { p_slug: slug, p_customer_id: customerId }, { get: true }),
  );
  const submission = parseSubmission(await readFormData(request), CustomerSchema);
  const note = typeof submission.payload.note === 'string' ? submission.payload.note : null;
  if (submission.status !== 'success')
    return dataWithSession(request, { result: submission.reply(), note }, { status: 400 });
  const value = submission.value;
  const here = `/w/${slug}/customers/${customerId}`;
  const done = (notice: Notice, anchor = '') => redirectWithSession(request, `${here}?done=${notice}${anchor}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    const { message, status } = error
      ? mapDbError(error, context)
      : { message: errorMessage('not_found'), status: errorStatus('not_found') };
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }), note }, { status });
  };
  const notes = () =>
    supabase.from('customer_notes').select('id').eq('workspace_id', page.workspace.id).eq('customer_id', customerId);

  switch (value.intent) {
    case 'add_note': {
      const { error } = await supabase
        .from('customer_notes')
        .insert({ workspace_id: page.workspace.id, customer_id: customerId, body: value.body });
      return error ? refuse(error, 'add customer note') : done('added', '#notes');
    }
    case 'edit_note': {
      const { data: rows, error } = await supabase
        .from('customer_notes')
        .update({ body: value.body })
        .eq('workspace_id', page.workspace.id)
        .eq('customer_id', customerId)
        .eq('id', value.note)
        .select('id');
      return error || !rows.length ? refuse(error, 'edit customer note') : done('saved', `#note-${value.note}`);
    }
    case 'delete_note': {
      // Row-level security lets the author or an admin delete: for anyone else no row goes.
      const { data: rows, error } = await supabase
        .from('customer_notes')
        .delete()
        .eq('workspace_id', page.workspace.id)
        .eq('customer_id', customerId)
        .eq('id', value.note)
        .select('id');
      if (!error && !rows.length && (await notes().eq('id', value.note)).data?.length)
        return dataWithSession(
          request,
          { result: submission.reply({ formErrors: [errorMessage('forbidden')] }), note },
          { status: errorStatus('forbidden') },
        );
      return error || !rows.length ? refuse(error, 'delete customer note') : done('deleted', '#notes');
    }
    case 'time_zone': {
      const { data: rows, error } = await supabase
        .from('customers')
        .update({ time_zone: value.time_zone || null })
        .eq('workspace_id', page.workspace.id)
        .eq('user_id', customerId)
        .select('user_id');
      return error || !rows.length ? refuse(error, 'customer time zone') : done('time_zone');
    }
  }
}
