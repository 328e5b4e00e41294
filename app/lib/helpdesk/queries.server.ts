// Server helpers for the helpdesk routes: form rules (product.md §5), PostgREST errors mapped to
// the catalogue (§8), and the look-ups every page needs. Always the user's cookie-bound client:
// row-level security is the authorisation.
import type { PostgrestError, SupabaseClient } from '@supabase/supabase-js';
import { z } from 'zod';
import { MESSAGE_MAX_LENGTH, SUBJECT_MAX_LENGTH, WORKSPACE_NAME_MAX_LENGTH } from '../constants.ts';
import { errorMessage, isErrorCode, type ErrorCode } from '../errors/catalogue.ts';
import { errorResponse } from '../http/responses.server.ts';
import { log } from '../http/log.server.ts';
import type { TicketStatus } from './vocabulary.ts';
import { getSupabase } from '../supabase/client.server.ts';

export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const RESERVED_SLUGS = new Set([
  'new',
  'admin',
  'api',
  'app',
  'auth',
  'login',
  'logout',
  'support',
  'w',
  'settings',
  'account',
  'onboarding',
  'invite',
  'www',
  'help',
  'static',
  'assets',
  'build',
]);

export const WorkspaceSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Enter a name of 1 to 80 characters.')
    .max(WORKSPACE_NAME_MAX_LENGTH, 'Enter a name of 1 to 80 characters.'),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .min(3, 'Use 3 to 40 characters.')
    .max(40, 'Use 3 to 40 characters.')
    .regex(new RegExp(SLUG_PATTERN), 'Use lower-case letters, digits and single hyphens, e.g. "acme-support".')
    .refine((s) => !RESERVED_SLUGS.has(s), 'That address is reserved. Choose another.'),
});

export const SubjectSchema = z
  .string()
  .trim()
  .min(1, `Enter a subject of 1 to ${SUBJECT_MAX_LENGTH} characters.`)
  .max(SUBJECT_MAX_LENGTH, `Enter a subject of 1 to ${SUBJECT_MAX_LENGTH} characters.`);
export const BodySchema = z
  .string()
  .refine((s) => s.trim().length > 0, 'Write a message.')
  .refine(
    (s) => s.length <= MESSAGE_MAX_LENGTH,
    `Keep the message under ${MESSAGE_MAX_LENGTH.toLocaleString('en')} characters.`,
  );

/** A customer's new request (/support/:slug/new). Schemas live here: zod must stay out of browser bundles. */
export const NewRequestSchema = z.object({ subject: SubjectSchema, body: BodySchema });

export type FieldErrors = Partial<Record<string, string[]>>;

/** zod issues → { field: [messages] } for the form. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? 'form');
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

export function formString(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === 'string' ? v : '';
}

export interface MappedError {
  code: ErrorCode;
  message: string;
  status: number;
  details: string | null;
}

/** A PostgREST/RPC error as a catalogue code and message. */
export function mapDbError(
  error: PostgrestError | { message?: string; code?: string; details?: string | null },
  context: string,
): MappedError {
  const code = error.code === 'P0001' && isErrorCode(error.message) ? error.message : null;
  if (code) {
    const details = (error.details as string | null) ?? null;
    if (code === 'invalid_transition') {
      const [from, to] = (details ?? '?→?').split('→');
      return {
        code,
        message: errorMessage('invalid_transition', { from: from ?? '?', to: to ?? '?' }),
        status: 409,
        details,
      };
    }
    if (code === 'code_rate_limited' || code === 'attachment_too_large' || code === 'attachment_type') {
      return { code: 'bad_request', message: errorMessage('bad_request'), status: 400, details };
    }
    log.info('helpdesk refused', { code, context });
    return { code, message: errorMessage(code), status: statusOf(code), details };
  }
  // Values Postgres refuses (class 22: a NUL character, a malformed uuid, out of range; 23514: a
  // check) reach it only from a hand-made request, since the forms validate first: bad input, 400.
  if (error.code && (error.code.startsWith('22') || error.code === '23514')) {
    log.warn('helpdesk input refused by the database', { context, pg_code: error.code, message: error.message });
    return { code: 'bad_request', message: errorMessage('bad_request'), status: 400, details: null };
  }
  // PostgREST always gives a code. Without one the data API was not reached: a refused or timed-out
  // fetch, or the gateway's own answer for a dead upstream (Kong's 502 "An invalid response was
  // received from the upstream server", 504 "The upstream server is timing out", 503 "… not running").
  const unreachable = !error.code;
  log.error('helpdesk database error', { context, pg_code: error.code, message: error.message });
  if (unreachable)
    return { code: 'backend_unavailable', message: errorMessage('backend_unavailable'), status: 503, details: null };
  return { code: 'unexpected', message: errorMessage('unexpected'), status: 500, details: null };
}

function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'not_found':
      return 404;
    case 'forbidden':
      return 403;
    case 'backend_unavailable':
      return 503;
    case 'assignee_not_member':
    case 'bad_request':
      return 400;
    default:
      return 409;
  }
}

/** Throws the catalogue error page for a failed loader query. */
export function throwDbError(request: Request, error: PostgrestError, context: string): never {
  const mapped = mapDbError(error, context);
  if (mapped.code === 'backend_unavailable') throw errorResponse(request, 'backend_unavailable');
  if (mapped.code === 'not_found') throw errorResponse(request, 'not_found');
  if (mapped.code === 'forbidden') throw errorResponse(request, 'forbidden');
  if (mapped.status === 400) throw errorResponse(request, 'bad_request');
  throw errorResponse(request, 'unexpected');
}

export interface Workspace {
  id: string;
  slug: string;
  name: string;
}

/** The workspace by slug (public name), or a thrown 404. */
export async function requireWorkspace(request: Request, supabase: SupabaseClient, slug: string): Promise<Workspace> {
  const { data, error } = await supabase.from('workspaces').select('id, slug, name').eq('slug', slug).maybeSingle();
  if (error) throwDbError(request, error, 'workspace');
  if (!data) throw errorResponse(request, 'not_found');
  return data as Workspace;
}

export interface Member {
  user_id: string;
  role: 'admin' | 'agent';
  name: string;
}

/**
 * The workspace for a member of it, in one query (my membership with its workspace embedded);
 * anyone else gets 404 — never reveal that it exists.
 */
export async function requireMembership(request: Request, supabase: SupabaseClient, userId: string, slug: string) {
  const { data, error } = await supabase
    .from('memberships')
    .select('role, workspaces!inner(id, slug, name)')
    .eq('user_id', userId)
    .eq('workspaces.slug', slug)
    .maybeSingle();
  if (error) throwDbError(request, error, 'membership');
  const row = data as { role: 'admin' | 'agent'; workspaces: Workspace | Workspace[] | null } | null;
  const workspace = Array.isArray(row?.workspaces) ? row.workspaces[0] : row?.workspaces;
  if (!row || !workspace) throw errorResponse(request, 'not_found');
  return { workspace, role: row.role };
}

/** The members of a workspace (ids and roles; RLS shows them to members only). */
export async function memberRows(request: Request, supabase: SupabaseClient, workspaceId: string) {
  const { data, error } = await supabase.from('memberships').select('user_id, role').eq('workspace_id', workspaceId);
  if (error) throwDbError(request, error, 'memberships');
  return (data ?? []) as { user_id: string; role: 'admin' | 'agent' }[];
}

/** Members with their names, sorted by name. */
export function namedMembers(
  rows: { user_id: string; role: 'admin' | 'agent' }[],
  names: Map<string, string>,
): Member[] {
  return rows
    .map((r) => ({ ...r, name: names.get(r.user_id) ?? 'Unknown' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** display names by user id (profiles RLS decides who is visible). */
export async function profileNames(
  request: Request,
  supabase: SupabaseClient,
  ids: (string | null | undefined)[],
): Promise<Map<string, string>> {
  const unique = [...new Set(ids.filter((x): x is string => !!x))];
  const out = new Map<string, string>();
  if (!unique.length) return out;
  const { data, error } = await supabase.from('profiles').select('user_id, display_name').in('user_id', unique);
  if (error) throwDbError(request, error, 'profiles');
  for (const p of (data ?? []) as { user_id: string; display_name: string }[]) out.set(p.user_id, p.display_name);
  return out;
}

/** A ticket number from the URL; anything else is a 404. */
export function parseNumber(request: Request, raw: string | undefined): number {
  const n = Number(raw);
  if (!raw || !/^\d{1,9}$/.test(raw) || !Number.isSafeInteger(n) || n < 1) throw errorResponse(request, 'not_found');
  return n;
}

/** The workspaces the user belongs to, for the home page. */
export async function myWorkspaces(request: Request, userId: string) {
  const { supabase } = getSupabase(request);
  const { data, error } = await supabase
    .from('memberships')
    .select('role, workspaces(slug, name)')
    .eq('user_id', userId);
  if (error) throwDbError(request, error, 'my workspaces');
  type Row = {
    role: 'admin' | 'agent';
    workspaces: { slug: string; name: string } | { slug: string; name: string }[] | null;
  };
  return ((data ?? []) as unknown as Row[])
    .map((r) => {
      const w = Array.isArray(r.workspaces) ? r.workspaces[0] : r.workspaces;
      return w ? { slug: w.slug, name: w.name, role: r.role } : null;
    })
    .filter((x): x is { slug: string; name: string; role: 'admin' | 'agent' } => !!x)
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
  type W = { slug: string; name: string };
  type Row = {
    number: number;
    subject: string;
    status: TicketStatus;
    last_message_at: string;
    workspaces: W | W[] | null;
  };
  return ((data ?? []) as unknown as Row[]).flatMap((r) => {
    const w = Array.isArray(r.workspaces) ? r.workspaces[0] : r.workspaces;
    return w ? [{ number: r.number, subject: r.subject, status: r.status, slug: w.slug, workspace: w.name }] : [];
  });
}
