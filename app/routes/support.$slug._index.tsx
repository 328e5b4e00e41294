// A workspace's customer portal: its name, the help center's search box (when it has articles),
// "Submit a request", and (signed in) my requests here.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { HelpSearchForm } from '~/components/help-ui.tsx';
import { StatusBadge } from '~/components/ticket-labels.tsx';
import { helpPath } from '~/lib/help/articles.ts';
import { getOptionalUser } from '~/lib/auth/session.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { PORTAL_STATUS_LABELS, type TicketStatus } from '~/lib/helpdesk/ticket-terms.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { requireWorkspace } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';
import helpStyles from '~/styles/help.css';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.workspace.name} support · Tend` : 'Support · Tend' },
  {
    name: 'description',
    content: data
      ? `Ask ${data.workspace.name} for help, and follow your requests.`
      : 'Ask for help, and follow your requests.',
  },
];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request);
  const { supabase } = getSupabase(request);
  const workspace = await requireWorkspace(request, supabase, params.slug ?? '');
  const articles = await supabase
    .from('help_articles')
    .select('id')
    .eq('workspace_id', workspace.id)
    .eq('status', 'published')
    .limit(1);
  if (articles.error) throwDbError(request, articles.error, 'portal help');
  const answered = new URL(request.url).searchParams.has('answered');
  let requests: { number: number; subject: string; status: TicketStatus; when: string; following: boolean }[] = [];
  if (user) {
    // Mine, and those I follow (docs/decisions/064-followers.md): a follower reads their own rows.
    const followed = await supabase
      .from('ticket_followers')
      .select('ticket_id')
      .eq('workspace_id', workspace.id)
      .eq('user_id', user.id)
      .limit(100);
    if (followed.error) throwDbError(request, followed.error, 'portal followed requests');
    const ids = followed.data.map((f) => f.ticket_id);
    const [{ data: rows, error }, zoneOf] = await Promise.all([
      supabase
        .from('tickets')
        .select('number, subject, status, last_message_at, requester_id, workspaces(time_zone)')
        .eq('workspace_id', workspace.id)
        .or(`requester_id.eq.${user.id}${ids.length ? `,id.in.(${ids.join(',')})` : ''}`)
        .order('last_message_at', { ascending: false })
        .limit(100),
      viewerZones({ request, context }, supabase),
    ]);
    if (error) throwDbError(request, error, 'portal requests');
    // The last activity in my time zone (docs/product.md §2).
    requests = rows.map((r) => ({
      number: r.number,
      subject: r.subject,
      status: r.status,
      when: formatDateIn(r.last_message_at, zoneOf(r.workspaces?.time_zone ?? 'UTC')),
      following: r.requester_id !== user.id,
    }));
  }
  return dataWithSession(request, {
    workspace,
    signedIn: !!user,
    requests,
    hasHelp: articles.data.length > 0,
    answered,
  });
}

export default function Portal() {
  const { workspace, signedIn, requests, hasHelp, answered } = useLoaderData<typeof loader>();
  const base = `/support/${workspace.slug}`;
  return (
    <section className="stack-lg" aria-labelledby="portal-title">
      <div className="card">
        <p className="eyebrow">Support</p>
        <h1 id="portal-title">{workspace.name}</h1>
        {answered ? (
          <p className="notice notice--success" role="status">
            Glad you found your answer. Nothing was sent.
          </p>
        ) : null}
        <p className="lead">Ask a question or report a problem. We'll answer here and by email.</p>
        {hasHelp ? (
          <div className="stack">
            <HelpSearchForm slug={workspace.slug} id="portal-help-q" />
            <p>
              <Link to={helpPath(workspace.slug)} reloadDocument>
                Browse the help center
              </Link>
            </p>
          </div>
        ) : null}
        <p>
          <Link to={`${base}/new`} className="button">
            Submit a request
          </Link>
        </p>
      </div>
      <div className="card">
        <h2>Your requests</h2>
        {!signedIn ? (
          <p>
            <Link to={`/login?redirectTo=${encodeURIComponent(base)}`}>Sign in</Link> to see your requests.
          </p>
        ) : requests.length === 0 ? (
          <p className="muted">You haven't opened any requests here yet.</p>
        ) : (
          <ul className="hd-list" data-testid="my-requests">
            {requests.map((r) => (
              <li key={r.number} className="hd-list__item">
                <Link to={`${base}/requests/${r.number}`}>
                  <span className="muted">#{r.number}</span> {r.subject}
                </Link>
                <StatusBadge status={r.status} label={PORTAL_STATUS_LABELS[r.status]} />
                <span className="muted small">
                  {r.following ? 'Following · ' : ''}
                  {r.when}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
