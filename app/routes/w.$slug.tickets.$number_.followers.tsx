// A ticket's followers on a page of their own (members only, docs/product.md#followers): where the sidebar's
// follower forms post. Added or removed: back to the ticket. Refused (an address that isn't one, the
// requester, a member, a full list): this page, with the address kept and the message at the field,
// with JavaScript or without. A new address gets an account first (the ensure-customer function, as
// "New conversation" makes one), so the follower can sign in to the portal with it.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { type TicketFollower, TicketFollowersForm } from '~/components/ticket-followers-form.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { FollowerSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { ticketFollowers } from '~/lib/helpdesk/followers.server.ts';
import { parseNumber, parseSlug, requireMemberTicket } from '~/lib/helpdesk/workspace-access.server.ts';
import { log } from '~/lib/http/log.server.ts';
import {
  dataWithSession,
  errorResponse,
  readFormData,
  redirectWithSession,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Followers of #${data.number} · Tend` : 'Followers · Tend' },
  { name: 'description', content: 'Who follows a ticket: they get its replies by email and can answer.' },
];

/** The page's data: the ticket's followers, and the workspace's customers to suggest (the 200 newest). */
async function followersPage(request: Request, supabase: Supabase, slug: string, number: number, workspaceId: string) {
  const [followers, customers] = await Promise.all([
    ticketFollowers(request, supabase, slug, number),
    supabase
      .from('customers')
      .select('email')
      .eq('workspace_id', workspaceId)
      .order('created_at', { ascending: false })
      .limit(200),
  ]);
  if (customers.error) throwDbError(request, customers.error, 'follower suggestions');
  return { followers, customers: customers.data.map((c) => c.email).filter((e): e is string => !!e) };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  return dataWithSession(request, {
    slug,
    number,
    ...(await followersPage(request, supabase, slug, number, ticket.workspaceId)),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const submission = parseSubmission(await readFormData(request), FollowerSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const form = submission.value;
  if (form.intent === 'add_follower') {
    const { error: ensured } = await supabase.functions.invoke('ensure-customer', {
      body: { workspace_id: ticket.workspaceId, email: form.email },
    });
    if (ensured) {
      log.warn('add follower: ensure-customer failed', { message: ensured.message });
      throw errorResponse(request, 'backend_unavailable');
    }
  }
  const { error } =
    form.intent === 'add_follower'
      ? await supabase.rpc('add_ticket_follower', { p_ticket_id: ticket.id, p_email: form.email })
      : await supabase.rpc('remove_ticket_follower', { p_ticket_id: ticket.id, p_user_id: form.user_id });
  if (error) {
    const mapped = mapDbError(error, form.intent);
    return dataWithSession(
      request,
      { result: submission.reply({ fieldErrors: { email: [mapped.message] } }) },
      { status: mapped.status },
    );
  }
  return redirectWithSession(request, `/w/${slug}/tickets/${number}#followers`);
}

export default function TicketFollowersPage() {
  const { slug, number, followers, customers } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <section className="stack-lg" aria-labelledby="ticket-followers-title">
      <div>
        <p className="eyebrow">
          <Link to={`/w/${slug}/tickets/${number}`}>Back to #{number}</Link>
        </p>
        <h1 id="ticket-followers-title">Followers of #{number}</h1>
        <p className="muted">
          Followers get the team’s replies by email (never internal notes), can answer them, and read the conversation
          in the portal once signed in with their address.
        </p>
      </div>
      <div className="card stack">
        <TicketFollowersForm
          action={`/w/${slug}/tickets/${number}/followers`}
          followers={followers as TicketFollower[]}
          customers={customers}
          result={answer?.result}
        />
      </div>
    </section>
  );
}
