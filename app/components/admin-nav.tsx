// The admin pages' own navigation (docs/product.md §2): back to the inbox, and between them.
import { Link } from '@remix-run/react';

const PAGES = [
  { key: 'members', label: 'Members', path: 'settings/members' },
  { key: 'settings', label: 'Settings', path: 'settings' },
  { key: 'reports', label: 'Reports', path: 'reports' },
] as const;

export function AdminNav({ slug, current }: { slug: string; current: (typeof PAGES)[number]['key'] }) {
  return (
    <nav aria-label="Workspace administration">
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
