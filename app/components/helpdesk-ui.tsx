// Small pieces shared by the helpdesk pages: a labelled textarea/select with its errors, and
// status and priority badges.
import type { ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { ErrorList } from '~/components/forms.tsx';
import { STATUS_LABELS, type TicketStatus } from '~/lib/helpdesk.ts';

export function TextareaField({
  id,
  label,
  errors,
  hint,
  ...props
}: { id: string; label: ReactNode; errors?: string[]; hint?: ReactNode } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const errorId = errors?.length ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <textarea
        {...props}
        id={id}
        className="input hd-textarea"
        aria-invalid={errorId ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
      />
      <ErrorList id={errorId} errors={errors} />
    </div>
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
  return <span className={`hd-priority hd-priority--${priority}`}>{priority[0]?.toUpperCase() + priority.slice(1)}</span>;
}
