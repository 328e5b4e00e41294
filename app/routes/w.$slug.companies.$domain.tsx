// A company (members only, docs/product.md#customers-companies-and-ticket-fields): the customers who write from its
// domain and their requests, newest activity first, 25 a page. Admins give it a name (empty: the domain again). A
// free-mail domain, or one none of the workspace's customers writes from, is 404.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { CustomerNav } from '~/components/customer-nav.tsx';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { PriorityBadge, StatusBadge } from '~/components/ticket-labels.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorResponse } from '~/lib/http/responses.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { COMPANY_NAME_MAX_LENGTH } from '~/lib/constants.ts';
import { CompanySchema } from '~/lib/forms/customer-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { type CompanyPageJson, pageOrThrow } from '~/lib/helpdesk/customers.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { decodeCursor, encodeCursor } from '~/lib/helpdesk/inbox-cursor.ts';
import { parseSlug, requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: data
      ? `${data.company.name ?? data.company.domain} · Companies · ${data.workspace.name} · Tend`
      : 'Company · Tend',
  },
  { name: 'description', content: 'A company: the customers who write from its domain and their requests.' },
];

/** A domain from the URL (letters, digits, dots, hyphens); anything else is a 404. */
function parseDomain(request: Request, raw: string | undefined): string {
  if (!raw || raw.length > 253 || !/^[a-z0-9.-]+\.[a-z0-9-]+$/i.test(raw)) throw errorResponse(request, 'not_found');
  return raw.toLowerCase();
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const domain = parseDomain(request, params.domain);
  const search = new URL(request.url).searchParams;
  const after = decodeCursor(search.get('after'));
  const [answer, zoneOf] = await Promise.all([
    supabase.rpc(
      'company_page',
      { p_slug: slug, p_domain: domain, ...(after ? { p_after_at: after.at, p_after_id: after.id } : {}) },
      { get: true },
    ),
    viewerZones({ request, context }, supabase),
  ]);
  const page = await pageOrThrow<CompanyPageJson>(request, supabase, slug, 'company page', answer);
  const zone = zoneOf(page.workspace.time_zone);
  return dataWithSession(request, {
    workspace: { id: page.workspace.id, slug: page.workspace.slug, name: page.workspace.name },
    adminOf: page.role === 'admin' ? page.workspace.slug : null,
    admin: page.role === 'admin',
    saved: search.get('done') === 'named',
    company: page.company,
    customers: page.customers,
    tickets: page.tickets.map(({ id: _id, ...t }) => ({ ...t, when: formatDateIn(t.last_message_at, zone) })),
    later: !!after,
    older: page.older ? encodeCursor(page.older) : null,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const domain = parseDomain(request, params.domain);
  const submission = parseSubmission(await readFormData(request), CompanySchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { name } = submission.value;
  // Renamed, else named for the first time (admins may change only the name of a row); empty: unnamed.
  const named = supabase.from('companies');
  let { data: rows, error } = name
    ? await named.update({ name }).eq('workspace_id', workspace.id).eq('domain', domain).select('domain')
    : await named.delete().eq('workspace_id', workspace.id).eq('domain', domain).select('domain');
  if (!error && name && !rows?.length)
    ({ error } = await supabase.from('companies').insert({ workspace_id: workspace.id, domain, name }));
  if (error) {
    const { message, status } = mapDbError(error, 'company name');
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }) }, { status });
  }
  return redirectWithSession(request, `/w/${workspace.slug}/companies/${domain}?done=named`);
}

export default function CompanyPage() {
  const { workspace, admin, saved, company, customers, tickets, later, older } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const base = `/w/${workspace.slug}`;
  return (
    <section className="stack-lg" aria-labelledby="company-title">
      <div>
        <p className="eyebrow">
          <Link to={`${base}/companies`}>{workspace.name} companies</Link>
        </p>
        <h1 id="company-title" dir="auto">
          {company.name ?? company.domain}
        </h1>
        <p className="muted small">
          {company.name ? `${company.domain} · ` : ''}
          {company.customers === 1 ? '1 customer' : `${company.customers} customers`}
        </p>
      </div>
      <CustomerNav slug={workspace.slug} />
      {saved ? (
        <p className="notice notice--success" role="status">
          Company name saved.
        </p>
      ) : null}
      <div className="hd-customer">
        <section className="card stack hd-customer__main" aria-labelledby="company-requests-title">
          <h2 id="company-requests-title">Requests</h2>
          {tickets.length ? (
            <ul className="hd-list" data-testid="company-tickets">
              {tickets.map((t) => (
                <li key={t.number} className="hd-customer__ticket">
                  <Link to={`${base}/tickets/${t.number}`} dir="auto">
                    #{t.number} {t.subject}
                  </Link>{' '}
                  <StatusBadge status={t.status} /> <PriorityBadge priority={t.priority} />
                  <br />
                  <span className="muted small">
                    <Link to={`${base}/customers/${t.requester_id}`}>
                      <bdi>{t.requester}</bdi>
                    </Link>{' '}
                    · <time dateTime={t.last_message_at}>{t.when}</time>
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No requests on this page.</p>
          )}
          {later || older ? (
            <nav aria-label="Pages of requests" className="hd-pager">
              {later ? <Link to="?">← Newest</Link> : <span />}
              {older ? (
                <Link to={`?after=${older}`} rel="next">
                  Older →
                </Link>
              ) : (
                <span />
              )}
            </nav>
          ) : null}
        </section>
        <div className="stack-lg hd-customer__side">
          <section className="card stack" aria-labelledby="company-customers-title">
            <h2 id="company-customers-title" className="hd-side-title">
              Customers
            </h2>
            <ul className="hd-side-list small" data-testid="company-customers">
              {customers.map((c) => (
                <li key={c.user_id}>
                  <Link to={`${base}/customers/${c.user_id}`} dir="auto">
                    {c.name}
                  </Link>{' '}
                  <span className="muted">({c.tickets})</span>
                </li>
              ))}
            </ul>
            {company.customers > customers.length ? (
              <Link to={`${base}/customers?company=${encodeURIComponent(company.domain)}`} className="small">
                All {company.customers} customers
              </Link>
            ) : null}
          </section>
          {admin ? (
            <Form method="post" className="card stack" aria-labelledby="company-name-title">
              <h2 id="company-name-title" className="hd-side-title">
                Name
              </h2>
              <ErrorList errors={replyFormErrors(answer?.result)} />
              <Field
                label="Company name"
                hint="Shown instead of the domain. Empty: the domain."
                errors={replyErrors(answer?.result, 'name')}
                inputProps={{
                  id: 'company-name',
                  name: 'name',
                  maxLength: COMPANY_NAME_MAX_LENGTH,
                  defaultValue: replyValue(answer?.result, 'name') ?? company.name ?? '',
                }}
              />
              <SubmitButton name="intent" value="name" className="button button--secondary">
                Save name
              </SubmitButton>
            </Form>
          ) : null}
        </div>
      </div>
    </section>
  );
}
