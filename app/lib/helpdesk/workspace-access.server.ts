// Who may reach a workspace's pages, and what of it: the guards of the helpdesk's loaders and actions
// (a workspace by its address, a member, an admin, a member's or a requester's ticket), and the
// address and number parsing they start with. Always the user's cookie-bound client: row-level
// security is the authorisation, and what it hides is a 404.
import { throwDbError } from '../errors/from-db.server.ts';
import { errorResponse, redirectWithSession } from '../http/responses.server.ts';
import type { Supabase } from '../supabase/client.server.ts';
import type { Tables } from '../supabase/database.types.ts';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../forms/fields.ts';

/** The data client, typed by the generated schema (rows, embeddings and RPCs). */
type Client = Supabase;

export type Workspace = Pick<Tables<'workspaces'>, 'id' | 'slug' | 'name'>;

const SLUG = new RegExp(`^(?:${SLUG_PATTERN})$`);

/**
 * A workspace address from the URL. What can't be one (a NUL, upper case, 300 characters) is a 404
 * without asking the database, which would refuse some of it as bad input instead.
 */
export function parseSlug(request: Request, raw: string | undefined): string {
  if (!raw || raw.length > SLUG_MAX_LENGTH || !SLUG.test(raw)) throw errorResponse(request, 'not_found');
  return raw;
}

/** The workspace by slug (public name), or a thrown 404. */
export async function requireWorkspace(request: Request, supabase: Client, rawSlug: string): Promise<Workspace> {
  const slug = parseSlug(request, rawSlug);
  // By slug through portal_workspace: nobody may list the workspaces table.
  const { data, error } = await supabase.rpc('portal_workspace', { p_slug: slug }).maybeSingle();
  if (error) throwDbError(request, error, 'workspace');
  if (!data) return throwNotFound(request, supabase, slug);
  return data;
}

/**
 * A page of /w/:slug or /support/:slug that was not found: at a workspace's old address (it was
 * renamed, workspace_slug_redirect), a GET goes to the same page at the new one; anything else is 404.
 * The redirect is a 302 no browser keeps: a workspace may take its old address back, and a kept
 * 301 would then send that browser round in a loop (ERR_TOO_MANY_REDIRECTS).
 */
export async function throwNotFound(request: Request, supabase: Client, slug: string): Promise<never> {
  // Only something shaped like an address can have been one (and junk never reaches the database).
  if ((request.method === 'GET' || request.method === 'HEAD') && SLUG.test(slug)) {
    const { data } = await supabase.rpc('workspace_slug_redirect', { p_slug: slug });
    const url = new URL(request.url);
    const renamed = typeof data === 'string' ? data : null;
    const path = url.pathname.replace(/^\/(w|support)\/[^/]+/, (_, area: string) => `/${area}/${renamed}`);
    if (renamed && path !== url.pathname)
      throw redirectWithSession(request, `${path}${url.search}`, { headers: { 'Cache-Control': 'no-store' } });
  }
  throw errorResponse(request, 'not_found');
}

/**
 * The workspace for a member of it, in one query (my membership with its workspace embedded);
 * anyone else gets 404 — never reveal that it exists.
 */
export async function requireMembership(request: Request, supabase: Client, userId: string, rawSlug: string) {
  const slug = parseSlug(request, rawSlug);
  const { data, error } = await supabase
    .from('memberships')
    .select('role, workspaces!inner(id, slug, name, time_zone)')
    .eq('user_id', userId)
    .eq('workspaces.slug', slug)
    .maybeSingle();
  if (error) throwDbError(request, error, 'membership');
  if (!data) return throwNotFound(request, supabase, slug);
  return { workspace: data.workspaces, role: data.role };
}

/** The workspace for one of its admins; an agent gets `forbidden` (403), anyone else `not_found`. */
export async function requireAdmin(request: Request, supabase: Client, userId: string, slug: string) {
  const { workspace, role } = await requireMembership(request, supabase, userId, slug);
  if (role !== 'admin') throw errorResponse(request, 'forbidden');
  return workspace;
}

/** A ticket number from the URL; anything else is a 404. */
export function parseNumber(request: Request, raw: string | undefined): number {
  const n = Number(raw);
  if (!raw || !/^\d{1,9}$/.test(raw) || !Number.isSafeInteger(n) || n < 1) throw errorResponse(request, 'not_found');
  return n;
}

/**
 * The ticket an agent's action is about, in one query: the ticket by workspace slug and number,
 * kept only when my membership of its workspace is there too (anyone else gets 404). Its id (and
 * workspace, the folder of its files) is all an action needs: the database checks the rest
 * (transitions, assignee membership, the traffic cop).
 */
export async function requireMemberTicket(
  request: Request,
  supabase: Client,
  userId: string,
  rawSlug: string,
  rawNumber: string | undefined,
): Promise<{ id: string; workspaceId: string }> {
  const slug = parseSlug(request, rawSlug);
  const number = parseNumber(request, rawNumber);
  const { data, error } = await supabase
    .from('tickets')
    .select('id, workspace_id, workspaces!inner(slug, memberships!inner(user_id))')
    .eq('number', number)
    .eq('workspaces.slug', slug)
    .eq('workspaces.memberships.user_id', userId)
    .maybeSingle();
  if (error) throwDbError(request, error, 'member ticket');
  if (!data) return throwNotFound(request, supabase, slug);
  return { id: data.id, workspaceId: data.workspace_id };
}

export type RequesterTicket = Pick<
  Tables<'tickets'>,
  'id' | 'number' | 'subject' | 'status' | 'created_at' | 'merged_into_id'
> & {
  /** Whether the reader follows it rather than asked (docs/decisions/064-followers.md). */
  following: boolean;
};

/**
 * A ticket of the reader's own, as its requester or a follower, with its workspace, in one query; anyone
 * else's (a member's of the team too: the portal is the customers') is a 404.
 */
export async function requireRequesterTicket(
  request: Request,
  supabase: Client,
  userId: string,
  rawSlug: string,
  rawNumber: string | undefined,
): Promise<{ workspace: Workspace & Pick<Tables<'workspaces'>, 'time_zone'>; ticket: RequesterTicket }> {
  const slug = parseSlug(request, rawSlug);
  const number = parseNumber(request, rawNumber);
  const { data, error } = await supabase
    .from('tickets')
    .select(
      'id, number, subject, status, created_at, merged_into_id, requester_id, workspaces!inner(id, slug, name, time_zone), ticket_followers(user_id)',
    )
    .eq('number', number)
    .eq('workspaces.slug', slug)
    .eq('ticket_followers.user_id', userId)
    .maybeSingle();
  if (error) throwDbError(request, error, 'requester ticket');
  if (!data || (data.requester_id !== userId && !data.ticket_followers.length))
    return throwNotFound(request, supabase, slug);
  const { workspaces: workspace, requester_id: _r, ticket_followers: _f, ...ticket } = data;
  return { workspace, ticket: { ...ticket, following: data.requester_id !== userId } };
}
