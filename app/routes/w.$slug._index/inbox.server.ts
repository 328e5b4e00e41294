// The inbox's loader and action (route.tsx): the page in one call to public.inbox, and "Claim next".
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { INBOX_PAGE_SIZE } from '~/lib/constants.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { InboxSchema, TagNameSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import type { PostgrestError } from '@supabase/supabase-js';
import type { z } from 'zod';
import { addBulk, type BulkResult, bulkPause, bulkSummary } from '~/lib/helpdesk/bulk.ts';
import {
  type InboxJson,
  inboxArgs,
  inboxFilters,
  keptParams,
  listedView,
  type SavedViewFilters,
  savedViewFilters,
  savedViewParams,
} from '~/lib/helpdesk/inbox-query.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';
import type { Json } from '~/lib/supabase/database.types.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import { parseSlug, requireMembership, throwNotFound } from '~/lib/helpdesk/workspace-access.server.ts';
import { decodeCursor, encodeCursor } from '~/lib/helpdesk/inbox-cursor.ts';
import { log } from '~/lib/http/log.server.ts';
import { dueBadge } from '~/lib/promises/due.ts';
import { ratingLabel } from '~/lib/satisfaction/ratings.ts';
import { publicOrigin } from '~/lib/http/request-info.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { ageLabel } from './age.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';

/** A saved view's filters as one comparable string (its URL parameters, sorted). */
const sameAs = (f: SavedViewFilters) =>
  Object.entries(savedViewParams(f))
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${x}`))
    .sort()
    .join('&');

// One round trip: the workspace (404 unless I'm a member), view counts, members and the page (its rows'
// satisfaction answers too).
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const url = new URL(request.url);
  const { view, ...filters } = inboxFilters(url.searchParams);
  const { q } = filters;
  const listed = listedView({ view, ...filters });
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
    ...inboxArgs({ view, ...filters }),
    p_after_at: after?.at,
    p_after_id: after?.id,
    p_before_at: before?.at,
    p_before_id: before?.id,
    p_limit: INBOX_PAGE_SIZE,
  };
  const [{ data: result, error }, zoneOf] = await Promise.all([
    supabase.rpc(
      'inbox',
      Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== '')) as typeof args,
      {
        get: true,
      },
    ),
    viewerZones({ request, context }, supabase),
  ]);
  if (error) {
    const context = q ? 'inbox search' : 'inbox';
    if (mapDbError(error, context).code === 'not_found') await throwNotFound(request, supabase, params.slug ?? '');
    throwDbError(request, error, context);
  }
  const inbox = jsonPage<InboxJson>(result);
  const now = new Date();
  const zone = zoneOf(inbox.workspace.time_zone);
  // "#123" or "123": straight to that ticket (a number that is no ticket's is searched as text).
  if (inbox.ticket_number !== null && inbox.ticket_number !== undefined && !after && !before)
    return redirectWithSession(request, `/w/${inbox.workspace.slug}/tickets/${inbox.ticket_number}`);
  let searchError: string | null = null;
  if (inbox.search_timeout !== null && inbox.search_timeout !== undefined) {
    log.warn('search timed out', { code: 'search_timeout', query: q, view, plan: inbox.search_timeout });
    searchError = errorMessage('search_timeout');
  }
  const slug = inbox.workspace.slug;
  const current = sameAs(savedViewFilters({ view, ...filters }));
  // The rows' latest satisfaction answers (their "rated Bad"), which the page's call carries.
  const ratings = new Map(
    inbox.tickets.flatMap((t) =>
      t.rating ? [[t.id, { rating: t.rating, label: ratingLabel(t.rating) }] as const] : [],
    ),
  );
  return dataWithSession(
    request,
    {
      workspace: { id: inbox.workspace.id, slug, name: inbox.workspace.name },
      members: inbox.members.map((m) => ({ user_id: m.user_id, name: m.name })),
      me: user.id,
      view,
      // The view listed: every view for a search, unless narrowed to the agent's own (scope=view).
      listed,
      filters,
      // The URL parameters that keep this view, search, filters and sort.
      keep: keptParams({ view, ...filters }),
      searchCounts: q ? inbox.search_counts : null,
      savedViews: inbox.saved_views.map((v) => ({
        id: v.id,
        name: v.name,
        shared: v.shared,
        count: v.count,
        href: inboxHref(slug, savedViewParams(v.filters)),
        current: sameAs(v.filters) === current,
      })),
      fields: inbox.fields,
      // Back to the newest page, the page number starts again.
      page: before && !inbox.newer ? 1 : page,
      total: inbox.total,
      counts: inbox.counts,
      tickets: inbox.tickets.map(({ assignee_id: _a, due_at, warn_at, snoozed_until, rating: _r, ...t }) => ({
        ...t,
        age: ageLabel(t.last_message_at, now),
        // The full time (the age's title) and the snooze's end, in my time zone.
        when: formatDateIn(t.last_message_at, zone),
        snoozed: formatDateIn(snoozed_until, zone) || null,
        due: dueBadge(due_at, warn_at, now, zone),
        rated: ratings.get(t.id) ?? null,
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
  if (submission.value.intent === 'bulk')
    return bulkAction(request, supabase, user.id, workspace.slug, submission.value, submission);
  if (submission.value.intent === 'empty_trash') {
    const { data: deleted, error } = await supabase.rpc('empty_trash', { p_workspace_id: workspace.id });
    if (error) {
      const mapped = mapDbError(error, 'empty_trash');
      return dataWithSession(
        request,
        { result: submission.reply({ formErrors: [mapped.message] }) },
        { status: mapped.status },
      );
    }
    return dataWithSession(request, { bulk: `${deleted} deleted for good`, done: crypto.randomUUID() });
  }
  if (submission.value.intent === 'save_view') {
    // The view, search, filters and sort of the page the form was on (its address is the form's action).
    const saved = savedViewFilters(inboxFilters(new URL(request.url).searchParams));
    const { error } = await supabase.rpc('save_inbox_view', {
      p_workspace_id: workspace.id,
      p_name: submission.value.name,
      p_shared: submission.value.shared === 'on',
      p_filters: saved as Json,
    });
    if (error) {
      const mapped = mapDbError(error, 'save_inbox_view');
      const field = mapped.code === 'view_share_forbidden' ? 'shared' : 'name';
      return dataWithSession(
        request,
        { result: submission.reply({ fieldErrors: { [field]: [mapped.message] } }) },
        { status: mapped.status },
      );
    }
    return redirectWithSession(request, inboxHref(workspace.slug, savedViewParams(saved)));
  }
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

/** Tickets per bulk call: the database's most, one short transaction each. */
const BULK_BATCH = 1000;

/**
 * A change to the selected tickets, or to every ticket the view (search and filters included) matches:
 * those are read page by page through public.inbox, as the CSV export does, and changed a batch per
 * call (public.bulk_update_tickets), so other agents' pages never wait on one long transaction.
 */
async function bulkAction(
  request: Request,
  supabase: Supabase,
  me: string,
  slug: string,
  form: Extract<z.infer<typeof InboxSchema>, { intent: 'bulk' }>,
  submission: ReturnType<typeof parseSubmission<typeof InboxSchema>>,
) {
  const refuse = (field: string, message: string, status: number) =>
    dataWithSession(request, { result: submission.reply({ fieldErrors: { [field]: [message] } }) }, { status });
  const [action, raw] = form.bulk_action.split(':') as [string, string | undefined];
  let value = action === 'assign' && raw === 'me' ? me : raw;
  if (action === 'add_tag' || action === 'remove_tag') {
    const tag = TagNameSchema.safeParse(form.tag ?? '');
    if (!tag.success) return refuse('tag', errorMessage('tag_invalid'), errorStatus('tag_invalid'));
    value = tag.data;
  }
  if (!form.all_matching && !form.ticket.length)
    return refuse('ticket', errorMessage('bulk_none_selected'), errorStatus('bulk_none_selected'));
  if (action === 'merge') {
    // Checked tickets only, into the oldest of them; first the tickets named, to confirm.
    if (form.all_matching || form.ticket.length < 2)
      return refuse('ticket', errorMessage('merge_needs_tickets'), errorStatus('merge_needs_tickets'));
    const { data: rows, error } = await supabase
      .from('tickets')
      .select('id, number, subject')
      .in('id', form.ticket)
      .order('number')
      .limit(1000);
    if (error) throwDbError(request, error, 'bulk merge');
    if (rows.length < 2)
      return refuse('ticket', errorMessage('merge_needs_tickets'), errorStatus('merge_needs_tickets'));
    if (!form.confirm)
      return dataWithSession(request, { result: submission.reply(), mergeConfirm: { into: rows[0], tickets: rows } });
    value = rows[0].id;
  }

  const change = async (ids: string[]) => {
    const { data, error } = await supabase.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: action,
      p_value: value,
    });
    return { result: data as unknown as BulkResult | null, error };
  };
  let done: BulkResult = { updated: 0, skipped: {} };
  let failure: PostgrestError | null = null;
  if (form.all_matching) {
    const args = { p_slug: slug, ...inboxArgs(inboxFilters(new URL(request.url).searchParams)), p_limit: BULK_BATCH };
    let after: InboxJson['older'] = null;
    let paused = 0;
    // One batch at a time, each a page's read and then its change, and a pause as long as the two took
    // (bulkPause): the run keeps one core at most, about half of one on average, not both, so the other
    // agents' pages don't wait behind it (docs/decisions/080-bulk-pacing.md).
    do {
      const started = performance.now();
      const { data, error } = await supabase.rpc(
        'inbox',
        after ? { ...args, p_after_at: after.at, p_after_id: after.id } : args,
        { get: true },
      );
      if (error) {
        failure = error;
        break;
      }
      // The next page starts past this page's last ticket, so this page's change can't alter it.
      const page: InboxJson = jsonPage<InboxJson>(data);
      after = page.older;
      if (page.tickets.length) {
        const batch = await change(page.tickets.map((t) => t.id));
        if (batch.error || !batch.result) {
          failure = batch.error;
          break;
        }
        done = addBulk(done, batch.result);
      }
      const pause = after ? bulkPause(performance.now() - started, paused) : 0;
      paused += pause;
      if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
    } while (after);
  } else {
    const batch = await change(form.ticket);
    failure = batch.error;
    if (batch.result) done = batch.result;
  }
  // A client that left (a closed tab, a dropped connection) stops nothing: the run goes on to the end, so no
  // change is left half made, and what it did is logged, since the page can't be told.
  if (request.signal.aborted)
    log.warn('bulk change finished after the client left', {
      code: 'bulk_unseen',
      action: form.bulk_action,
      said: bulkSummary(done),
      failed: failure?.message,
    });
  if (failure) {
    const mapped = mapDbError(failure, 'bulk change');
    // What was done before the refusal stays done, and is said.
    const said = done.updated ? ` (${bulkSummary(done)} before that.)` : '';
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message + said] }) },
      { status: mapped.status },
    );
  }
  return dataWithSession(request, { bulk: bulkSummary(done), done: crypto.randomUUID() });
}
