// The inbox as CSV (admins only; agents get `forbidden`): the same view, search and filters as
// /w/:slug, streamed page by page through the inbox's own keyset pages, so memory stays the same
// at 100 000 tickets. RFC 4180 with a UTF-8 BOM; formula-like cells neutralised (app/lib/export/csv.ts).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { CSV_BOM, csvRow } from '~/lib/export/csv.ts';
import { type InboxJson, inboxArgs, inboxFilters } from '~/lib/helpdesk/inbox-query.server.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import type { InboxCursor } from '~/lib/helpdesk/inbox-cursor.ts';
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { log } from '~/lib/http/log.server.ts';
import { errorResponse, responseHeaders } from '~/lib/http/responses.server.ts';

/** Tickets per inbox call (its most): a million rows in a thousand calls. */
const EXPORT_PAGE_SIZE = 1000;

const HEADER = ['Number', 'Subject', 'Status', 'Priority', 'Requester', 'Assignee', 'Tags', 'Last activity'];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { slug } = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const shown = inboxFilters(new URL(request.url).searchParams);
  const { view, q } = shown;
  const filters = inboxArgs(shown);
  const pageAfter = (after: InboxCursor | null) =>
    supabase.rpc(
      'inbox',
      {
        p_slug: slug,
        ...filters,
        p_limit: EXPORT_PAGE_SIZE,
        ...(after ? { p_after_at: after.at, p_after_id: after.id } : {}),
      },
      { get: true },
    );

  const first = await pageAfter(null);
  if (first.error) throwDbError(request, first.error, q ? 'inbox search' : 'export');
  let page: InboxJson | null = jsonPage<InboxJson>(first.data);
  if (page.search_timeout != null) {
    log.warn('search timed out', { code: 'search_timeout', query: q, view, plan: page.search_timeout });
    throw errorResponse(request, 'search_timeout');
  }
  const fileName = `${page.workspace.slug}-tickets-${new Date().toISOString().slice(0, 10)}.csv`;
  // The custom fields, in their order, one column each after the built-in ones
  // (docs/product.md#customers-companies-and-ticket-fields).
  const { data: fields, error: fieldsError } = await supabase
    .from('ticket_fields')
    .select('id, label')
    .eq('workspace_id', page.workspace.id)
    .order('position')
    .order('created_at')
    .order('id');
  if (fieldsError) throwDbError(request, fieldsError, 'export');
  /** A page's field values, by ticket and field (one call a page; none without fields). */
  const valuesOf = async (ids: string[]) => {
    const byTicket = new Map<string, Map<string, string>>();
    if (!fields.length || !ids.length) return byTicket;
    const { data, error } = await supabase.rpc('ticket_field_values_of', { p_ticket_ids: ids });
    if (error) throw new Error(`export field values: ${error.message}`);
    for (const v of data) byTicket.set(v.ticket_id, (byTicket.get(v.ticket_id) ?? new Map()).set(v.field_id, v.value));
    return byTicket;
  };

  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(CSV_BOM + csvRow([...HEADER, ...fields.map((f) => f.label)])));
    },
    // One inbox page per pull: the next is asked for only when the client has read this one.
    async pull(controller) {
      if (!page) return controller.close();
      let values: Map<string, Map<string, string>>;
      try {
        values = await valuesOf(page.tickets.map((t) => t.id));
      } catch (error) {
        log.error('export stopped', { message: String(error) });
        return controller.error(new Error('export stopped'));
      }
      const rows = page.tickets.map((t) =>
        csvRow([
          t.number,
          t.subject,
          STATUS_LABELS[t.status] ?? t.status,
          PRIORITY_LABELS[t.priority] ?? t.priority,
          t.requester,
          t.assignee ?? '',
          t.tags.map((tag) => tag.name).join(' '),
          t.last_message_at,
          ...fields.map((f) => values.get(t.id)?.get(f.id) ?? ''),
        ]),
      );
      controller.enqueue(encoder.encode(rows.join('')));
      if (!page.older) {
        page = null;
        return controller.close();
      }
      const next = await pageAfter(page.older);
      if (next.error) {
        // The headers are gone: a cut-off download is all that can be said.
        log.error('export stopped', { code: next.error.code, message: next.error.message });
        return controller.error(new Error('export stopped'));
      }
      page = jsonPage<InboxJson>(next.data);
      if (page.search_timeout != null) {
        log.error('export stopped', { code: 'search_timeout', plan: page.search_timeout });
        return controller.error(new Error('export stopped'));
      }
    },
  });
  return new Response(stream, {
    headers: responseHeaders(request, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${fileName}"`,
      'Cache-Control': 'private, no-store',
    }),
  });
}
