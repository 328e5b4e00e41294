// The inbox's loader and action (route.tsx): the page in one call to public.inbox, and "Claim next".
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { INBOX_PAGE_SIZE } from '~/lib/constants.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { InboxSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { type InboxJson, inboxFilters } from '~/lib/helpdesk/inbox-query.server.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import { parseSlug, requireMembership, throwNotFound } from '~/lib/helpdesk/workspace-access.server.ts';
import { decodeCursor, encodeCursor } from '~/lib/helpdesk/inbox-cursor.ts';
import { log } from '~/lib/http/log.server.ts';
import { dueBadge } from '~/lib/promises/due.ts';
import { publicOrigin } from '~/lib/http/request-info.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

// One round trip: the workspace (404 unless I'm a member), view counts, members and the page.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const url = new URL(request.url);
  const { view, q, status, priority, assignee } = inboxFilters(url.searchParams);
  const after = decodeCursor(url.searchParams.get('after'));
  const before = after ? null : decodeCursor(url.searchParams.get('before'));
  // The page number is only shown ("26–50 of …"); the cursor decides what is listed.
  const page =
    after || before
      ? Math.max(1, Math.min(1_000_000, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1))
      : 1;

  // GET: a stable function, and the same request bench:inbox times against PostgREST alone. A GET
  // carries every argument as text ("null" included), so unset ones are left out for their defaults.
  const args = {
    p_slug: parseSlug(request, params.slug),
    p_view: view,
    p_query: q,
    p_status: status,
    p_priority: priority,
    p_assignee: assignee,
    p_after_at: after?.at,
    p_after_id: after?.id,
    p_before_at: before?.at,
    p_before_id: before?.id,
    p_limit: INBOX_PAGE_SIZE,
  };
  const { data: result, error } = await supabase.rpc(
    'inbox',
    Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== '')) as typeof args,
    {
      get: true,
    },
  );
  if (error) {
    const context = q ? 'inbox search' : 'inbox';
    if (mapDbError(error, context).code === 'not_found') await throwNotFound(request, supabase, params.slug ?? '');
    throwDbError(request, error, context);
  }
  const inbox = jsonPage<InboxJson>(result);
  const now = new Date();
  // "#123" or "123": straight to that ticket (a number that is no ticket's is searched as text).
  if (inbox.ticket_number !== null && inbox.ticket_number !== undefined && !after && !before)
    return redirectWithSession(request, `/w/${inbox.workspace.slug}/tickets/${inbox.ticket_number}`);
  let searchError: string | null = null;
  if (inbox.search_timeout !== null && inbox.search_timeout !== undefined) {
    log.warn('search timed out', { code: 'search_timeout', query: q, view, plan: inbox.search_timeout });
    searchError = errorMessage('search_timeout');
  }
  return dataWithSession(
    request,
    {
      workspace: { id: inbox.workspace.id, slug: inbox.workspace.slug, name: inbox.workspace.name },
      members: inbox.members.map((m) => ({ user_id: m.user_id, name: m.name })),
      me: user.id,
      view,
      filters: { q, status, priority, assignee },
      // Back to the newest page, the page number starts again.
      page: before && !inbox.newer ? 1 : page,
      total: inbox.total,
      counts: inbox.counts,
      tickets: inbox.tickets.map(({ assignee_id: _a, due_at, warn_at, ...t }) => ({
        ...t,
        due: dueBadge(due_at, warn_at, now, inbox.workspace.time_zone),
      })),
      older: inbox.older ? encodeCursor(inbox.older) : null,
      newer: inbox.newer ? encodeCursor(inbox.newer) : null,
      nothingToClaim: url.searchParams.get('claimed') === 'none',
      // Automatic assignment is on: am I available for it (the toolbar's switch)?
      available: inbox.assignment === 'off' ? null : inbox.available,
      // The site header's admin links (site-header.tsx), and what to do first in an empty workspace.
      adminOf: inbox.role === 'admin' ? inbox.workspace.slug : null,
      firstRun: inbox.counts.all === 0 ? { portal: `${publicOrigin(request)}/support/${inbox.workspace.slug}` } : null,
      searchError,
    },
    searchError ? { status: errorStatus('search_timeout') } : undefined,
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), InboxSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  if (submission.value.intent === 'availability') {
    const { error } = await supabase.rpc('set_availability', {
      p_workspace_id: workspace.id,
      p_available: submission.value.available === 'on',
    });
    if (error) {
      const mapped = mapDbError(error, 'set_availability');
      return dataWithSession(
        request,
        { result: submission.reply({ formErrors: [mapped.message] }) },
        { status: mapped.status },
      );
    }
    return redirectWithSession(request, `/w/${workspace.slug}`);
  }
  const { data: row, error } = await supabase.rpc('claim_next_ticket', {
    p_workspace_id: workspace.id,
  });
  if (error) {
    const mapped = mapDbError(error, 'claim_next_ticket');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  const claimed = (Array.isArray(row) ? row[0] : row) as {
    number?: number | null;
  } | null;
  if (!claimed?.number) return redirectWithSession(request, `/w/${workspace.slug}?view=unassigned&claimed=none`);
  return redirectWithSession(request, `/w/${workspace.slug}/tickets/${claimed.number}`);
}
