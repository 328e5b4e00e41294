// A ticket's status, priority, assignee and tags as people read them: the badges of the inbox, the
// ticket page and the portal, the options of their selects (the sidebar, the inbox's filters), and a
// tag's chip (docs/product.md#tags).
import {
  PRIORITIES,
  PRIORITY_LABELS,
  STATUS_LABELS,
  STATUSES,
  type TicketPriority,
  type TicketStatus,
} from '~/lib/helpdesk/ticket-terms.ts';
import type { ReactNode } from 'react';
import { html } from '~/lib/markup.ts';

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`hd-badge hd-badge--${status}`} data-status={status}>
      {label ?? STATUS_LABELS[status as TicketStatus] ?? status}
    </span>
  );
}

/** StatusBadge's markup, for rows written as markup (the inbox's: docs/decisions/115-rows-as-markup.md). */
export const statusBadgeHtml = (status: string) =>
  html`<span class="hd-badge hd-badge--${status}" data-status="${status}">${STATUS_LABELS[status as TicketStatus] ?? status}</span>`;

export function PriorityBadge({ priority }: { priority: string }) {
  return (
    <span className={`hd-priority hd-priority--${priority}`}>
      {PRIORITY_LABELS[priority as TicketPriority] ?? priority}
    </span>
  );
}

/** PriorityBadge's markup. */
export const priorityBadgeHtml = (priority: string) =>
  html`<span class="hd-priority hd-priority--${priority}">${PRIORITY_LABELS[priority as TicketPriority] ?? priority}</span>`;

/** The `<option>`s of a status select. */
export function StatusOptions() {
  return STATUSES.map((s) => (
    <option key={s} value={s}>
      {STATUS_LABELS[s]}
    </option>
  ));
}

/** The `<option>`s of a priority select. */
export function PriorityOptions() {
  return PRIORITIES.map((p) => (
    <option key={p} value={p}>
      {PRIORITY_LABELS[p]}
    </option>
  ));
}

/** The `<option>`s of an assignee select: the workspace's members by name. */
export function MemberOptions({ members }: { members: { user_id: string; name: string }[] }) {
  return members.map((m) => (
    <option key={m.user_id} value={m.user_id}>
      {m.name}
    </option>
  ));
}

/** A tag: its name on its colour; a link when it leads somewhere (the inbox filtered by it). */
export function TagChip({
  name,
  colour,
  href,
  children,
}: {
  name: string;
  colour: string;
  href?: string;
  children?: ReactNode;
}) {
  const className = `hd-tag hd-tag--${colour}`;
  return href ? (
    <a href={href} className={className} data-tag={name}>
      {name}
    </a>
  ) : (
    <span className={className} data-tag={name}>
      {name}
      {children}
    </span>
  );
}

/** A linked TagChip's markup. */
export const tagLinkHtml = (name: string, colour: string, href: string) =>
  html`<a href="${href}" class="hd-tag hd-tag--${colour}" data-tag="${name}">${name}</a>`;
