// The front page: what Tend is; signed in, my workspaces and my requests (home.server.ts).
import { Link, useLoaderData } from '@remix-run/react';
import { PORTAL_STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import type { loader } from './home.server.ts';

export { loader } from './home.server.ts';

export default function Index() {
  const { user, signedOut, workspaces, requests } = useLoaderData<typeof loader>();
  if (user) {
    return (
      <section className="stack-lg" aria-labelledby="welcome-title">
        <div className="card">
          <h1 id="welcome-title">Welcome, {user.displayName ?? user.email}</h1>
          <p className="lead">You're signed in.</p>
          <p>
            <Link to="/account" className="button button--secondary">
              Your account
            </Link>
          </p>
        </div>
        {/* Someone who only asks for help (requests, no workspace) isn't offered to run a helpdesk. */}
        {workspaces.length || !requests.length ? (
          <div className="card">
            <h2>Your workspaces</h2>
            {workspaces.length ? (
              <ul className="hd-list" data-testid="my-workspaces">
                {workspaces.map((w) => (
                  <li key={w.slug} className="hd-list__item">
                    <Link to={`/w/${w.slug}`}>{w.name}</Link> <span className="muted small">{w.role}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">You're not in a workspace yet.</p>
            )}
            <p>
              <Link to="/onboarding">Create a workspace</Link>
            </p>
          </div>
        ) : null}
        <div className="card">
          <h2>Your requests</h2>
          {requests.length ? (
            <ul className="hd-list" data-testid="my-requests">
              {requests.map((r) => (
                <li key={`${r.slug}-${r.number}`} className="hd-list__item">
                  <Link to={`/support/${r.slug}/requests/${r.number}`}>
                    <span className="muted">
                      {r.workspace} #{r.number}
                    </span>{' '}
                    <bdi>{r.subject}</bdi>
                  </Link>{' '}
                  <span className="muted small">{PORTAL_STATUS_LABELS[r.status]}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">You haven't opened any requests.</p>
          )}
        </div>
      </section>
    );
  }
  return (
    <section className="stack-lg" aria-labelledby="hero-title">
      {signedOut ? (
        <p className="notice notice--success" role="status">
          You're signed out.
        </p>
      ) : null}
      <div className="hero">
        <h1 id="hero-title">One inbox for your team's support</h1>
        <p className="lead">
          Tend gives a small team a shared support inbox. Customers reach you without an account or a password; agents
          work one live queue, reply, leave internal notes and resolve.
        </p>
        <p>
          <Link to="/login" className="button">
            Sign in with your email
          </Link>
        </p>
      </div>
      <ul className="features">
        <li>
          <h2>For customers</h2>
          <p>Sign in with a code from your email. Every request, reply and file in one thread.</p>
        </li>
        <li>
          <h2>For agents</h2>
          <p>One queue, live. See who else is viewing a ticket, so two people never answer the same customer.</p>
        </li>
        <li>
          <h2>For admins</h2>
          <p>Invite agents, keep canned replies, and see volume, first response and resolution times.</p>
        </li>
      </ul>
    </section>
  );
}
