// The notification settings' forms (/account for a member's own, /w/:slug/settings/notifications for the
// team's defaults): per kind, how it is emailed (`email_<kind>`) and whether the bell shows it
// (`in_app_<kind>`, a checkbox: absent is off). Only a hand-made request sends a value the form doesn't
// offer: bad_request.
import { z } from 'zod';
import { errorMessage } from '../errors/catalogue.server.ts';
import { UUID_RE } from '../helpdesk/ticket-terms.ts';
import { EMAIL_CHOICES, NOTIFICATION_KINDS } from '../notifications/kinds.ts';

const badRequest = { error: errorMessage('bad_request') };
const emails = EMAIL_CHOICES.map((c) => c.value) as [string, ...string[]];

const fields: Record<string, z.ZodType<string | undefined>> = Object.fromEntries(
  NOTIFICATION_KINDS.flatMap(({ kind }) => [
    [`email_${kind}`, z.enum(emails, badRequest)],
    [`in_app_${kind}`, z.literal('on', badRequest).optional()],
  ]),
);

const Save = z.object({ intent: z.literal('notifications') }).extend(fields);
const WorkspaceId = z.string(badRequest).regex(UUID_RE, badRequest.error);

/** /account: save one workspace's settings, or go back to the team's defaults. */
export const NotificationSettingsSchema = z.discriminatedUnion(
  'intent',
  [
    Save.extend({ workspace: WorkspaceId }),
    z.object({ intent: z.literal('notifications_reset'), workspace: WorkspaceId }),
  ],
  badRequest,
);

/** /w/:slug/settings/notifications: the team's defaults. */
export const NotificationDefaultsSchema = Save;

/** The settings a valid form says, as save_notification_settings takes them. */
export function settingsOf(value: Record<string, unknown>) {
  return NOTIFICATION_KINDS.map(({ kind }) => ({
    kind,
    email: value[`email_${kind}`] as string,
    in_app: value[`in_app_${kind}`] === 'on',
  }));
}
