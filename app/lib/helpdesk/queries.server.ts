// The look-ups the helpdesk pages and actions share. Always the user's cookie-bound client:
// row-level security is the authorisation, and what it hides is a 404.
import type { SupabaseClient } from '@supabase/supabase-js';
import { throwDbError } from '../errors/from-db.server.ts';
import { errorResponse } from '../http/responses.server.ts';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../forms/fields.ts';
import { getSupabase } from '../supabase/client.server.ts';
import type { Database, Tables } from '../supabase/database.types.ts';
import type { MemberRole } from './vocabulary.ts';

/** The data client, typed by the generated schema (rows, embeddings and RPCs). */
type Client = SupabaseClient<Database>;

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
  if (!data) throw errorResponse(request, 'not_found');
  return data;
}

export interface Member {
  user_id: string;
  role: MemberRole;
  name: string;
}

/**
 * The workspace for a member of it, in one query (my membership with its workspace embedded);
 * anyone else gets 404 — never reveal that it exists.
 */
export async function requireMembership(request: Request, supabase: Client, userId: string, rawSlug: string) {
  const slug = parseSlug(request, rawSlug);
  const { data, error } = await supabase
    .from('memberships')
    .select('role, workspaces!inner(id, slug, name)')
    .eq('user_id', userId)
    .eq('workspaces.slug', slug)
    .maybeSingle();
  if (error) throwDbError(request, error, 'membership');
  if (!data) throw errorResponse(request, 'not_found');
  return { workspace: data.workspaces, role: data.role };
}

/** Members with their names, sorted by name. */
export function namedMembers(rows: { user_id: string; role: MemberRole }[], names: Map<string, string>): Member[] {
  return rows
    .map((r) => ({ ...r, name: names.get(r.user_id) ?? 'Unknown' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** display names by user id (profiles RLS decides who is visible). */
export async function profileNames(
  request: Request,
  supabase: Client,
  ids: (string | null | undefined)[],
): Promise<Map<string, string>> {
  const unique = [...new Set(ids.filter((x): x is string => !!x))];
  const out = new Map<string, string>();
  if (!unique.length) return out;
  const { data, error } = await supabase.from('profiles').select('user_id, display_name').in('user_id', unique);
  if (error) throwDbError(request, error, 'profiles');
  for (const p of data ?? []) out.set(p.user_id, p.display_name);
  return out;
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
  if (!data) throw errorResponse(request, 'not_found');
  return { id: data.id, workspaceId: data.workspace_id };
}

export type RequesterTicket = Pick<Tables<'tickets'>, 'id' | 'number' | 'subject' | 'status' | 'created_at'>;

/** A requester's own ticket with its workspace, in one query; anyone else's is a 404. */
export async function requireRequesterTicket(
  request: Request,
  supabase: Client,
  userId: string,
  rawSlug: string,
  rawNumber: string | undefined,
): Promise<{ workspace: Workspace; ticket: RequesterTicket }> {
  const slug = parseSlug(request, rawSlug);
  const number = parseNumber(request, rawNumber);
  const { data, error } = await supabase
    .from('tickets')
    .select('id, number, subject, status, created_at, workspaces!inner(id, slug, name)')
    .eq('number', number)
    .eq('workspaces.slug', slug)
    .eq('requester_id', userId)
    .maybeSingle();
  if (error) throwDbError(request, error, 'requester ticket');
  if (!data) throw errorResponse(request, 'not_found');
  const { workspaces: workspace, ...ticket } = data;
  return { workspace, ticket };
}

/** The workspaces the user belongs to, for the home page. */
export async function myWorkspaces(request: Request, userId: string) {
  const { supabase } = getSupabase(request);
  const { data, error } = await supabase
    .from('memberships')
    .select('role, workspaces(slug, name)')
    .eq('user_id', userId);
  if (error) throwDbError(request, error, 'my workspaces');
  return (data ?? [])
    .flatMap(({ role, workspaces: w }) => (w ? [{ slug: w.slug, name: w.name, role }] : []))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The requests the user opened, newest activity first, for the home page. */
export async function myRequests(request: Request, userId: string) {
  const { supabase } = getSupabase(request);
  const { data, error } = await supabase
    .from('tickets')
    .select('number, subject, status, last_message_at, workspaces(slug, name)')
    .eq('requester_id', userId)
    .order('last_message_at', { ascending: false })
    .limit(50);
  if (error) throwDbError(request, error, 'my requests');
  return (data ?? []).flatMap(({ workspaces: w, ...r }) =>
    w ? [{ number: r.number, subject: r.subject, status: r.status, slug: w.slug, workspace: w.name }] : [],
  );
}
