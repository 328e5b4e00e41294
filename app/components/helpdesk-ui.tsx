// Small pieces shared by the helpdesk pages: a labelled textarea/select with its errors, and
// status and priority badges.
import type { ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { FieldFrame } from '~/components/forms.tsx';
import {
  PRIORITIES,
  PRIORITY_LABELS,
  STATUS_LABELS,
  STATUSES,
  type TicketPriority,
  type TicketStatus,
} from '~/lib/helpdesk/ticket-terms.ts';

export function TextareaField({
  id,
  label,
  errors,
  hint,
  ...props
}: {
  id: string;
  label: ReactNode;
  errors?: string[];
  hint?: ReactNode;
} & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <FieldFrame id={id} label={label} hint={hint} errors={errors}>
      {(aria) => <textarea {...props} id={id} className="input hd-textarea" {...aria} />}
    </FieldFrame>
  );
}

export function SelectField({
  id,
  label,
  children,
  ...props
}: { id: string; label: ReactNode; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select {...props} id={id} className="input">
        {children}
      </select>
    </div>
  );
}

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`hd-badge hd-badge--${status}`} data-status={status}>
      {label ?? STATUS_LABELS[status as TicketStatus] ?? status}
    </span>
  );
}

export function PriorityBadge({ priority }: { priority: string }) {
  return (
    <span className={`hd-priority hd-priority--${priority}`}>
      {PRIORITY_LABELS[priority as TicketPriority] ?? priority}
    </span>
  );
}

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
