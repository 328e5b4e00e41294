// The admin pages' own navigation (docs/product.md §2): back to the inbox, and between them.
import { Link } from '@remix-run/react';

const PAGES = [
  { key: 'members', label: 'Members', path: 'settings/members' },
  { key: 'replies', label: 'Canned replies', path: 'settings/replies' },
  { key: 'tags', label: 'Tags', path: 'settings/tags' },
  { key: 'fields', label: 'Ticket fields', path: 'settings/fields' },
  { key: 'notifications', label: 'Notifications', path: 'settings/notifications' },
  { key: 'email', label: 'Email', path: 'settings/email' },
  { key: 'settings', label: 'Settings', path: 'settings' },
  { key: 'hours', label: 'Hours and targets', path: 'settings/hours' },
  { key: 'assignment', label: 'Assignment', path: 'settings/assignment' },
  { key: 'satisfaction', label: 'Satisfaction', path: 'settings/satisfaction' },
  { key: 'reports', label: 'Reports', path: 'reports' },
  { key: 'help', label: 'Help center', path: 'help' },
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

/** An admin page's top: the workspace, the title (its id labels the page), the admin links, what was just done. */
export function AdminPageHeader({
  workspaceName,
  slug,
  current,
  title,
  titleId,
  notice,
}: {
  workspaceName: string;
  slug: string;
  current: (typeof PAGES)[number]['key'];
  title: string;
  titleId: string;
  notice?: string | null;
}) {
  return (
    <>
      <div>
        <p className="eyebrow">{workspaceName}</p>
        <h1 id={titleId}>{title}</h1>
      </div>
      <AdminNav slug={slug} current={current} />
      {notice ? (
        <p className="notice notice--success" role="status">
          {notice}
        </p>
      ) : null}
    </>
  );
}
