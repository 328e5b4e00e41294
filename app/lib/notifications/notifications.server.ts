// The team's notifications (docs/product.md#notifications; docs/decisions/045-notifications.md), read and marked
// with the user's own client: row-level security shows each member their own, in the app. Settings per
// workspace and kind come from notification_preferences, and are saved by save_notification_settings.
import { formatDateIn } from '../helpdesk/format-date.ts';
import { viewerZones } from '../helpdesk/viewer-zone.server.ts';
import {
  EMAIL_CHOICES,
  NOTIFICATION_KINDS,
  notificationHeadline,
  type NotificationEmail,
  type NotificationKind,
} from './kinds.ts';
import { NOTIFICATIONS_PAGE } from '../constants.ts';
import { throwDbError } from '../errors/from-db.server.ts';
import type { Supabase } from '../supabase/client.server.ts';

export { EMAIL_CHOICES, NOTIFICATION_KINDS, type NotificationEmail, type NotificationKind };

export interface NotificationItem {
  id: string;
  text: string;
  href: string;
  workspace: string;
  unread: boolean;
  created_at: string;
  /** created_at in my time zone (viewer-zone.server.ts). */
  when: string;
}

/** The bell's number: unread notifications (up to 100), or null for someone in no workspace. */
export async function unreadCount(supabase: Supabase): Promise<number | null> {
  const { data, error } = await supabase.rpc('unread_notifications');
  // The bell is a convenience: a failed count shows no number rather than failing the page.
  if (error) return null;
  return data;
}

/** The signed-in member's latest notifications, each with its line, where it leads and when (in my zone). */
export async function listNotifications(
  { request, context }: { request: Request; context: object },
  supabase: Supabase,
): Promise<NotificationItem[]> {
  const [{ data, error }, zoneOf] = await Promise.all([
    supabase
      .from('notifications')
      .select(
        'id, kind, created_at, read_at, ticket:tickets(number, subject, created_at), workspace:workspaces(slug, name, time_zone), actor:profiles!notifications_actor_profile_fkey(display_name)',
      )
      .order('created_at', { ascending: false })
      .order('id', { ascending: false })
      .limit(NOTIFICATIONS_PAGE),
    viewerZones({ request, context }, supabase),
  ]);
  if (error) throwDbError(request, error, 'notifications');
  return data.map((n) => ({
    id: n.id,
    text: notificationHeadline(
      n.kind as NotificationKind,
      n.actor?.display_name ?? 'Tend',
      n.ticket,
      !!n.ticket && n.ticket.created_at === n.created_at,
    ),
    href: n.ticket ? `/w/${n.workspace.slug}/tickets/${n.ticket.number}` : `/w/${n.workspace.slug}`,
    workspace: n.workspace.name,
    unread: !n.read_at,
    created_at: n.created_at,
    when: formatDateIn(n.created_at, zoneOf(n.workspace.time_zone)),
  }));
}

export interface Preference {
  kind: NotificationKind;
  label: string;
  hint: string;
  email: NotificationEmail;
  in_app: boolean;
  /** The member chose this themselves (else it is the team's default). */
  own: boolean;
  team_email: NotificationEmail;
  team_in_app: boolean;
}

/** What applies to the caller in one workspace, for the kinds the settings offer. */
export async function preferences(request: Request, supabase: Supabase, workspaceId: string): Promise<Preference[]> {
  const { data, error } = await supabase.rpc('notification_preferences', { p_workspace_id: workspaceId });
  if (error) throwDbError(request, error, 'notification preferences');
  return NOTIFICATION_KINDS.flatMap(({ kind, label, hint }) => {
    const row = data.find((r) => r.kind === kind);
    return row
      ? [
          {
            ...row,
            kind,
            label,
            hint,
            email: row.email as NotificationEmail,
            team_email: row.team_email as NotificationEmail,
          },
        ]
      : [];
  });
}
