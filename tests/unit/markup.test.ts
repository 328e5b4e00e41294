// Parts of pages written as markup (app/lib/markup.ts, docs/decisions/115-rows-as-markup.md): the inbox's row
// cells and a thread's messages must be the bytes React wrote for the elements they replace, whatever the
// text (escaped as React escapes it, so nothing a customer writes becomes markup). The references below are
// those elements as they were, built with createElement.
import { createElement as h, Fragment, type ReactNode } from 'react';
import { renderToStaticMarkup, renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DueBadge } from '../../app/components/due-badge.tsx';
import { FILE_ICONS, Thread, type ThreadMessage } from '../../app/components/helpdesk-thread.tsx';
import { PriorityBadge, StatusBadge, TagChip } from '../../app/components/ticket-labels.tsx';
import { formatSize, isImageType } from '../../app/lib/helpdesk/attachments.ts';
import { escapeHtml, html } from '../../app/lib/markup.ts';
import { rowCells } from '../../app/routes/w.$slug._index/table.tsx';

// Text a customer might write: every character React escapes, quotes of both kinds, markup, a right-to-left
// override, characters beyond Latin-1 and beyond the BMP.
const NASTY = [
  'plain',
  '',
  `<script>alert("x")</script> & 'quotes' > "double"`,
  '&amp; already escaped &lt;b&gt;',
  'Refund 5–10 business days… “curly” ’s → 😀',
  '\u202Egnp.exe',
  'javascript:alert(1)',
];

describe('html``', () => {
  it('escapes text and attribute values as React does', () => {
    for (const text of NASTY) {
      expect(html`<span title="${text}">${text}</span>`.__html).toBe(
        renderToStaticMarkup(h('span', { title: text }, text)),
      );
      expect(escapeHtml(text)).toBe(renderToStaticMarkup(h(Fragment, null, text)));
    }
  });

  it('writes numbers, lists and nested markup as they are, and nothing for null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`${1}|${[inner, '&', [2]]}|${null}${undefined}${false}|${{ __html: '<hr/>' }}`.__html).toBe(
      '1|<b>&lt;i&gt;</b>&amp;2||<hr/>',
    );
  });
});

type Row = Parameters<typeof rowCells>[0];

const row = (over: Partial<Row>): Row => ({
  id: '0b8e1c1e-7a44-4f4c-9f4e-3f0d5b9b2c11',
  number: 1234,
  subject: 'Parcel never arrived',
  preview: 'Where is it?',
  status: 'open',
  priority: 'normal',
  requester: 'Ada Customer',
  requester_id: '5d2f0a1c-8f43-4a51-9d1e-7b6c1f0e2a33',
  assignee: null,
  tags: [],
  last_message_at: '2026-11-29T05:45:27+00:00',
  age: '4h',
  when: '29 Nov 2026, 05:45 UTC',
  snoozed: null,
  due: null,
  rated: null,
  ...over,
});

/** The row's cells as table.tsx wrote them with React before 115. */
function reactCells(t: Row, slug: string, tagHref: (name: string) => string): [string, ReactNode][] {
  return [
    [
      'hd-cell-subject',
      h(
        Fragment,
        null,
        h('span', { className: 'hd-num' }, `#${t.number}`),
        ' ',
        h('a', { href: `/w/${slug}/tickets/${t.number}`, dir: 'auto' }, t.subject),
        t.preview ? h('span', { className: 'hd-preview', dir: 'auto' }, t.preview) : null,
      ),
    ],
    [
      'hd-cell-tags',
      t.tags.length
        ? h(
            'ul',
            { className: 'hd-tags', 'aria-label': 'Tags' },
            t.tags.map((tag) =>
              h('li', { key: tag.id }, h(TagChip, { name: tag.name, colour: tag.colour, href: tagHref(tag.name) })),
            ),
          )
        : null,
    ],
    [
      'hd-cell-requester',
      h(
        Fragment,
        null,
        h('span', { className: 'hd-cell-label' }, 'From '),
        h('a', { href: `/w/${slug}/customers/${t.requester_id}` }, h('bdi', null, t.requester)),
      ),
    ],
    [
      'hd-cell-assignee',
      h(
        Fragment,
        null,
        h('span', { className: 'hd-cell-label' }, 'Assignee '),
        t.assignee ? h('bdi', null, t.assignee) : h('span', { className: 'muted' }, 'nobody'),
      ),
    ],
    [
      'hd-cell-status',
      h(
        Fragment,
        null,
        h(StatusBadge, { status: t.status }),
        t.rated
          ? h('span', { className: `small cs-rated cs-rated--${t.rated.rating}` }, ` rated ${t.rated.label}`)
          : null,
        t.priority === 'normal' ? null : h(Fragment, null, ' ', h(PriorityBadge, { priority: t.priority })),
      ),
    ],
    ['hd-cell-due', t.due ? h(DueBadge, { due: t.due }) : null],
    [
      'small hd-cell-date',
      h(
        Fragment,
        null,
        h('time', { dateTime: t.last_message_at, title: t.when }, t.age),
        t.snoozed ? h('span', { className: 'muted' }, ` · snoozed until ${t.snoozed}`) : null,
      ),
    ],
  ];
}

const asCells = (cells: [string, ReactNode][]) =>
  renderToString(
    h('tr', null, ...cells.map(([className, children]) => h('td', { key: className, className }, children))),
  );
const asMarkup = (cells: ReturnType<typeof rowCells>) =>
  renderToString(
    h(
      'tr',
      null,
      ...cells.map(([className, markup]) => h('td', { key: className, className, dangerouslySetInnerHTML: markup })),
    ),
  );

describe("the inbox's row cells", () => {
  const tagHref = (name: string) => `/w/acme?view=all&tag=${encodeURIComponent(name)}&q=${encodeURIComponent('a"b')}`;
  const rows: Row[] = [
    row({}),
    row({ preview: null, assignee: 'Sam Support', priority: 'urgent', status: 'pending' }),
    row({
      tags: [
        { id: 't1', name: 'billing', colour: 'blue' },
        { id: 't2', name: 'vip', colour: 'purple' },
      ],
      due: { text: 'overdue 2 h', tone: 'breached', when: 'Mon 9 Mar, 10:00 UTC+1' },
      rated: { rating: 'bad', label: 'Bad' },
      snoozed: '30 Nov 2026, 09:00 UTC',
      priority: 'low',
      status: 'solved',
    }),
    ...NASTY.map((text, i) =>
      row({
        number: i,
        subject: text,
        preview: text,
        requester: text,
        assignee: text || null,
        age: text,
        when: text,
        snoozed: text || null,
        // Not a status or priority the database has: the badges write what they are given.
        status: text as Row['status'],
        priority: text as Row['priority'],
        due: { text, tone: 'ok', when: text },
        rated: { rating: 'good', label: text as 'Good' },
      }),
    ),
  ];

  it('are the bytes React wrote for the same cells', () => {
    for (const t of rows) expect(asMarkup(rowCells(t, 'acme', tagHref))).toBe(asCells(reactCells(t, 'acme', tagHref)));
  });
});

/** A thread as helpdesk-thread.tsx wrote it with React before 115 (no "earlier" link: that one is still React's). */
function ReactThread({
  messages,
  highlightAfter,
  filesPath,
  articleFrom,
}: {
  messages: ThreadMessage[];
  highlightAfter: string | null;
  filesPath: string;
  articleFrom?: string;
}) {
  const href = (id: string) => `${filesPath}${id}`;
  let passed = false;
  return h(
    'ol',
    { className: 'hd-thread', 'aria-label': 'Conversation' },
    messages.map((m) => {
      const isNew = !!highlightAfter && passed;
      if (m.id === highlightAfter) passed = true;
      const files = m.attachments ?? [];
      return h(
        'li',
        {
          key: m.id,
          id: `message-${m.id}`,
          className: `hd-message${m.kind === 'note' ? ' hd-message--note' : ''}${isNew ? ' hd-message--new' : ''}`,
          'data-kind': m.kind,
          'data-message-id': m.id,
        },
        h(
          'div',
          { className: 'hd-message__meta' },
          h('strong', null, h('bdi', null, m.author)),
          m.kind === 'note' ? h('span', { className: 'hd-note-label' }, 'Internal note') : null,
          isNew ? h('span', { className: 'hd-new-label' }, 'New') : null,
          h('time', { dateTime: m.created_at }, m.when),
        ),
        // biome-ignore lint/security/noDangerouslySetInnerHtml: the reference thread, as helpdesk-thread.tsx wrote it
        h('div', { className: 'hd-message__body', dangerouslySetInnerHTML: { __html: m.html } }),
        files.length
          ? h(
              'ul',
              { className: 'hd-files', 'aria-label': 'Attachments' },
              files.map((f) =>
                h(
                  'li',
                  { key: f.id, className: 'hd-file' },
                  h(
                    'a',
                    { href: href(f.id), className: 'hd-file__link', 'data-testid': 'attachment' },
                    isImageType(f.mime_type)
                      ? h('img', {
                          className: 'hd-file__thumb',
                          src: href(f.id),
                          alt: '',
                          width: 40,
                          height: 40,
                          loading: 'lazy',
                        })
                      : h(
                          'span',
                          { className: 'hd-file__icon', 'aria-hidden': 'true' },
                          FILE_ICONS.find(([re]) => re.test(f.mime_type))?.[1] ?? 'FILE',
                        ),
                    h('span', { className: 'hd-file__name' }, f.file_name),
                  ),
                  ' ',
                  h('span', { className: 'hd-file__size muted small' }, formatSize(f.size)),
                ),
              ),
            )
          : null,
        m.notice ? h('p', { className: 'hd-message__notice' }, m.notice) : null,
        articleFrom && m.kind === 'reply'
          ? h('a', { href: `${articleFrom}${m.id}` }, 'Create article from this reply')
          : null,
        m.split ? h('a', { href: m.split }, 'Split into a new ticket') : null,
      );
    }),
  );
}

describe("a thread's messages", () => {
  const message = (i: number, over: Partial<ThreadMessage>): ThreadMessage => ({
    id: `m${i}`,
    kind: 'reply',
    created_at: `2026-11-28T07:4${i}:38.764975+00:00`,
    author_id: 'u1',
    author: 'Alex Agent',
    html: '<p>Checked the order &amp; the tracking.</p>\n',
    when: `28 Nov 2026, 07:4${i} UTC`,
    ...over,
  });
  const messages: ThreadMessage[] = [
    message(0, {}),
    message(1, {
      kind: 'note',
      author: 'Sam <Support>',
      notice: 'Sent to "a@b" & c',
      split: '/w/acme/tickets/3/split?message=m1&x=1',
    }),
    message(2, {
      attachments: [
        { id: 'f1', file_name: 'shot "1".png', size: 123456, mime_type: 'image/png' },
        { id: 'f2', file_name: 'report<1>.pdf', size: 12, mime_type: 'application/pdf' },
        { id: 'f3', file_name: 'notes.bin', size: 2_400_000, mime_type: 'application/octet-stream' },
      ],
      split: '/w/acme/tickets/3/split?message=m2',
    }),
    ...NASTY.map((text, i) => message(3 + i, { author: text, when: text, notice: text || null })),
  ];

  it('are the bytes React wrote for the same messages, on the agent’s page and the portal', () => {
    for (const highlightAfter of [null, 'm1']) {
      for (const articleFrom of ['/w/acme/help/new?from=', undefined]) {
        const props = { messages, highlightAfter, filesPath: '/w/acme/tickets/3/files/', articleFrom };
        expect(renderToString(h(Thread, props))).toBe(renderToString(h(Fragment, null, h(ReactThread, props))));
      }
    }
  });
});
