// What to do first in a workspace without a single request (docs/product.md §2, /w/:slug): share the
// portal, invite the team (admins), open a test request as a customer would.
export function FirstRun({ slug, portal, admin }: { slug: string; portal: string; admin: boolean }) {
  return (
    <section className="card stack first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <h2 id="first-run-title">Get started</h2>
      <ol className="stack">
        <li>
          <strong>Share your portal.</strong> Customers open requests at{' '}
          <a href={`/support/${slug}`} data-testid="first-run-portal">
            {portal}
          </a>
          . Link it from your website or email signature.
        </li>
        {admin ? (
          <li>
            <strong>Invite your team.</strong> <a href={`/w/${slug}/settings/members`}>Add agents and admins</a> by
            email.
          </li>
        ) : null}
        <li>
          <strong>Open a test request.</strong> <a href={`/support/${slug}/new`}>Submit one</a> as a customer would; it
          appears here at once.
        </li>
      </ol>
    </section>
  );
}
