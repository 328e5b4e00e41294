// The customer and company pages' calls (docs/product.md#customers-companies-and-ticket-fields): each page is one SQL
// function (supabase/schemas/58_customers.sql) answering jsonb, declared here from the row types; a workspace
// the reader isn't a member of is the same 404 as one that doesn't exist.
import { mapDbError, throwDbError } from '../errors/from-db.server.ts';
import type { PostgrestError } from '@supabase/supabase-js';
import type { Tables } from '../supabase/database.types.ts';
import type { Workspace } from './workspace-access.server.ts';
import { throwNotFound } from './workspace-access.server.ts';
import type { Supabase } from '../supabase/client.server.ts';
import type { InboxCursor } from './inbox-cursor.ts';

export type CustomerRow = Pick<Tables<'customers'>, 'user_id' | 'name' | 'email' | 'company' | 'tickets'>;
export type CustomerTicket = Pick<
  Tables<'tickets'>,
  'id' | 'number' | 'subject' | 'status' | 'priority' | 'last_message_at'
>;
type Role = Tables<'memberships'>['role'];

/** public.customers_page. */
export interface CustomersPageJson {
  workspace: Workspace;
  role: Role;
  customers: CustomerRow[];
  next: { name: string; id: string } | null;
}

/** public.customer_page. */
export interface CustomerPageJson {
  workspace: Workspace & Pick<Tables<'workspaces'>, 'time_zone'>;
  role: Role;
  customer: CustomerRow & Pick<Tables<'customers'>, 'time_zone' | 'created_at'> & { company_name: string | null };
  tickets: CustomerTicket[];
  older: InboxCursor | null;
  notes: (Pick<Tables<'customer_notes'>, 'id' | 'body' | 'created_by' | 'created_at' | 'updated_by' | 'updated_at'> & {
    versions: Pick<Tables<'customer_note_versions'>, 'body' | 'written_by' | 'written_at'>[];
  })[];
  names: Record<string, string>;
}

/** public.companies_page. */
export interface CompaniesPageJson {
  workspace: Workspace;
  role: Role;
  companies: { domain: string; name: string | null; customers: number; tickets: number }[];
  next: string | null;
}

/** public.company_page. */
export interface CompanyPageJson {
  workspace: Workspace;
  role: Role;
  company: { domain: string; name: string | null; customers: number };
  customers: Omit<CustomerRow, 'company'>[];
  tickets: (CustomerTicket & { requester_id: string; requester: string })[];
  older: InboxCursor | null;
}

/**
 * A page function's answer, or the thrown page for its refusal: not_found (at a renamed workspace's
 * old address, a redirect to the new one), else the catalogue's page.
 */
export async function pageOrThrow<T>(
  request: Request,
  supabase: Supabase,
  slug: string,
  context: string,
  { data, error }: { data: unknown; error: PostgrestError | null },
): Promise<T> {
  if (error) {
    if (mapDbError(error, context).code === 'not_found') await throwNotFound(request, supabase, slug);
    throwDbError(request, error, context);
  }
  return data as T;
}

/** The start of a search or company filter as typed (at most 100 characters; blank: none). */
export function searchParam(url: URL, name: string): string {
  return (url.searchParams.get(name) ?? '').trim().slice(0, 100);
}
