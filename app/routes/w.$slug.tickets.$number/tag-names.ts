// The tag field's suggestions (docs/product.md#tags): the workspace's tag names, fetched from
// /w/:slug/tags.json into the field's <datalist> on each focus (so a tag made meanwhile is there too;
// one request at a time). Loaded on the field's first focus, so the ticket page carries none of it until
// then (docs/decisions/039-tags.md).

export async function suggestTags(slug: string) {
  const list = document.getElementById('tag-names');
  if (!list || list.dataset.asking) return;
  list.dataset.asking = 'yes';
  try {
    const res = await fetch(`/w/${slug}/tags.json`);
    if (!res.ok) return;
    const { tags } = (await res.json()) as { tags: { name: string }[] };
    list.replaceChildren(...tags.map((t) => Object.assign(document.createElement('option'), { value: t.name })));
  } finally {
    delete list.dataset.asking;
  }
}
