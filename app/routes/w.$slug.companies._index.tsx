// A workspace's companies (members only, docs/product.md#customers-companies-and-ticket-fields): its customers' email
// domains, free mail excepted (docs/decisions/059-customers-and-companies.md), by domain, 50 a page, with how many
// customers and requests each has; search by the start of a domain or of the name an admin gave it (`q`).
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { CustomerNav, ListSearch } from '~/components/customer-nav.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { type CompaniesPageJson, pageOrThrow, searchParam } from '~/lib/helpdesk/customers.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Companies · ${data.workspace.name} · Tend` : 'Companies · Tend' },
  { name: 'description', content: 'The companies this workspace’s customers write from, by email domain.' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const url = new URL(request.url);
  const q = searchParam(url, 'q');
  const after = searchParam(url, 'after');
  const page = await pageOrThrow<CompaniesPageJson>(
    request,
    supabase,
    slug,
    'companies',
    await supabase.rpc(
      'companies_page',
      { p_slug: slug, p_query: q || undefined, p_after: after || undefined },
      { get: true },
    ),
  );
  const keep = new URLSearchParams(q ? { q } : {});
  return dataWithSession(request, {
    workspace: page.workspace,
    adminOf: page.role === 'admin' ? page.workspace.slug : null,
    q,
    companies: page.companies,
    later: !!after,
    first: `?${keep}`,
    next: page.next ? `?${new URLSearchParams({ ...Object.fromEntries(keep), after: page.next })}` : null,
  });
}

export default function CompaniesPage() {
  const { workspace, q, companies, later, first, next } = useLoaderData<typeof loader>();
  const base = `/w/${workspace.slug}`;
  return (
    <section className="stack-lg" aria-labelledby="companies-title">
      <div>
        <p className="eyebrow">{workspace.name}</p>
        <h1 id="companies-title">Companies</h1>
        <p className="muted small">
          Customers grouped by the domain of their email address. Free mail such as gmail.com is no company.
        </p>
      </div>
      <CustomerNav slug={workspace.slug} current="companies" />
      <ListSearch label="Search companies" value={q} hint="Domain or name, from its start" />
      <div className="card hd-table-wrap">
        {companies.length === 0 ? (
          <p className="muted" data-testid="companies-empty">
            {q ? `No company’s domain or name starts with “${q}”.` : 'No companies yet.'}
          </p>
        ) : (
          <table className="hd-table hd-table--plain" data-testid="companies">
            <caption className="visually-hidden">Companies by domain</caption>
            <thead>
              <tr>
                <th scope="col">Company</th>
                <th scope="col">Domain</th>
                <th scope="col">Customers</th>
                <th scope="col">Requests</th>
              </tr>
            </thead>
            <tbody>
              {companies.map((c) => (
                <tr key={c.domain} data-testid="company-row">
                  <td>
                    <Link to={`${base}/companies/${c.domain}`} dir="auto">
                      {c.name ?? c.domain}
                    </Link>
                  </td>
                  <td className="hd-cell-email">{c.domain}</td>
                  <td>
                    <span className="hd-cell-label">Customers </span>
                    {c.customers}
                  </td>
                  <td>
                    <span className="hd-cell-label">Requests </span>
                    {c.tickets}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {later || next ? (
        <nav aria-label="Pages" className="hd-pager">
          {later ? <Link to={first}>← First page</Link> : <span />}
          {next ? (
            <Link to={next} rel="next">
              Next page →
            </Link>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
    </section>
  );
}
