// A workspace's customers (members only, docs/product.md#customers-companies-and-ticket-fields): everyone who opened a
// request here, by name, 50 a page; search by the start of a name or an email address (`q`), or a company's
// (`company`). One call, public.customers_page (supabase/schemas/58_customers.sql), on its own indexes.
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { CustomerNav, ListSearch } from '~/components/customer-nav.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { type CustomersPageJson, pageOrThrow, searchParam } from '~/lib/helpdesk/customers.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Customers · ${data.workspace.name} · Tend` : 'Customers · Tend' },
  { name: 'description', content: 'Everyone who asked this workspace for help, searchable by name or email.' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const url = new URL(request.url);
  const q = searchParam(url, 'q');
  const company = searchParam(url, 'company');
  // The next page starts after this name and id; anything else shows the first page.
  const afterName = url.searchParams.get('after_name')?.slice(0, 200);
  const afterId = url.searchParams.get('after_id') ?? '';
  const after =
    afterName !== undefined && UUID_RE.test(afterId) ? { p_after_name: afterName, p_after_id: afterId } : {};
  const page = await pageOrThrow<CustomersPageJson>(
    request,
    supabase,
    slug,
    'customers',
    await supabase.rpc(
      'customers_page',
      { p_slug: slug, p_query: q || undefined, p_company: company || undefined, ...after },
      { get: true },
    ),
  );
  const keep = new URLSearchParams({ ...(q ? { q } : {}), ...(company ? { company } : {}) });
  const next = page.next
    ? new URLSearchParams({ ...Object.fromEntries(keep), after_name: page.next.name, after_id: page.next.id })
    : null;
  return dataWithSession(request, {
    workspace: page.workspace,
    adminOf: page.role === 'admin' ? page.workspace.slug : null,
    q,
    company,
    customers: page.customers,
    later: 'p_after_id' in after,
    first: `?${keep}`,
    next: next ? `?${next}` : null,
  });
}

export default function CustomersPage() {
  const { workspace, q, company, customers, later, first, next } = useLoaderData<typeof loader>();
  const base = `/w/${workspace.slug}`;
  return (
    <section className="stack-lg" aria-labelledby="customers-title">
      <div>
        <p className="eyebrow">{workspace.name}</p>
        <h1 id="customers-title">Customers{company ? ` at ${company}` : ''}</h1>
      </div>
      <CustomerNav slug={workspace.slug} current="customers" />
      <ListSearch label="Search customers" value={q} hint="Name or email, from its start" />
      <div className="card hd-table-wrap">
        {customers.length === 0 ? (
          <p className="muted" data-testid="customers-empty">
            {q
              ? `No customer’s name or email starts with “${q}”.`
              : 'No customers yet: they appear with their first request.'}
          </p>
        ) : (
          <table className="hd-table hd-table--plain" data-testid="customers">
            <caption className="visually-hidden">Customers by name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Company</th>
                <th scope="col">Requests</th>
              </tr>
            </thead>
            <tbody>
              {customers.map((c) => (
                <tr key={c.user_id} data-testid="customer-row">
                  <td>
                    <Link to={`${base}/customers/${c.user_id}`} dir="auto">
                      {c.name}
                    </Link>
                  </td>
                  <td className="hd-cell-email">{c.email}</td>
                  <td>
                    {c.company ? (
                      <Link to={`${base}/companies/${c.company}`}>{c.company}</Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
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
