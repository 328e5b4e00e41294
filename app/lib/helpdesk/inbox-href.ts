// The inbox's address for a view, search, filters and page: what its links keep.

/** `/w/:slug?…` with these parameters: empty ones and page 1 left out, `tag` once per tag. */
export function inboxHref(slug: string, params: Record<string, string | number | string[] | undefined>) {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    for (const one of Array.isArray(v) ? v : [v])
      if (one !== undefined && one !== '' && !(k === 'page' && (one as number) <= 1)) sp.append(k, String(one));
  const s = sp.toString();
  return `/w/${slug}${s ? `?${s}` : ''}`;
}
