// The sidebar's cards whose forms are markup the loader renders: the custom fields (docs/product.md
// §2.10; app/components/ticket-fields-form.tsx, shown only when the workspace has fields) and the
// followers (§2.11; app/components/ticket-followers-form.tsx). Plain forms posting to a page of their
// own (/w/:slug/tickets/:number/fields, …/followers), which comes back here or shows what it refused:
// the ticket page loads no code for them (docs/decisions/006-javascript-budget.md).
export function MarkupCard({ id, title, html }: { id: string; title: string; html: string | null }) {
  if (!html) return null;
  return (
    <div className="card stack" id={id}>
      <h2 className="hd-side-title">{title}</h2>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: markup React rendered on the server from the rows (texts escaped). */}
      <div dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  );
}
