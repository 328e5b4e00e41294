// The customer and company pages' own navigation (docs/product.md#customers-companies-and-ticket-fields): back to the
// inbox, and between the two lists.
import { Link } from '@remix-run/react';

const PAGES = [
  { key: 'customers', label: 'Customers', path: 'customers' },
  { key: 'companies', label: 'Companies', path: 'companies' },
] as const;

export function CustomerNav({ slug, current }: { slug: string; current?: (typeof PAGES)[number]['key'] }) {
  return (
    <nav aria-label="Customers and companies">
      <ul className="hd-tabs">
        <li>
          <Link to={`/w/${slug}`} className="hd-tab">
            Inbox
          </Link>
        </li>
        {PAGES.map((p) => (
          <li key={p.key}>
            <Link to={`/w/${slug}/${p.path}`} className="hd-tab" aria-current={p.key === current ? 'page' : undefined}>
              {p.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A search box of a list page (GET, so the URL is the search). */
export function ListSearch({ label, value, hint }: { label: string; value: string; hint: string }) {
  return (
    <form method="get" className="hd-search">
      <label htmlFor="list-q" className="visually-hidden">
        {label}
      </label>
      <input
        id="list-q"
        name="q"
        type="search"
        className="input"
        defaultValue={value}
        maxLength={100}
        placeholder={hint}
      />
      <button type="submit" className="button button--secondary">
        Search
      </button>
    </form>
  );
}
