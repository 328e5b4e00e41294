// The notification kinds a member chooses for and their wording, shared with the notify function, which
// can only read supabase/functions (supabase/functions/_shared/notifications.ts).
export {
  EMAIL_CHOICES,
  NOTIFICATION_KINDS,
  notificationHeadline,
  type NotificationEmail,
  type NotificationKind,
} from '../../../supabase/functions/_shared/notifications.ts';
