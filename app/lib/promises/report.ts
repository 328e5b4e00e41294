// sla_report's answer (supabase/schemas/90_promises.sql): the SLA section of the reports page.
import type { TicketPriority } from '../helpdesk/ticket-terms.ts';

export interface MetShare {
  met: number;
  total: number;
}

export interface SlaReport {
  /** Per week, from the Monday it starts on (the workspace's days). */
  weeks: (MetShare & { week: string })[];
  /** Per assignee when the target was decided (null: unassigned). */
  agents: (MetShare & { assignee_id: string | null; name: string | null })[];
  priorities: (MetShare & { priority: TicketPriority })[];
}

/** "83 %" of the targets met, "–" when none was decided. */
export function metPercent({ met, total }: MetShare): string {
  return total ? `${Math.round((100 * met) / total)} %` : '–';
}
