// The signed-in user's account (docs/product.md §2): email (read-only) and display name, the time zone
// the app shows times in (agents and requesters; docs/decisions/067-viewer-time-zone.md), and for members
// their signature and the notification settings of each workspace (docs/product.md#notifications). The name lives in
// `profiles.display_name` (docs/product.md §3; what teammates and customers see, through RLS).
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  FieldFrame,
  type FormReply,
  SubmitButton,
  TextareaField,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { DISPLAY_NAME_MAX_LENGTH } from '~/lib/constants.ts';
import { NotificationSettingsFields } from '~/components/notification-settings.tsx';
import { SIGNATURE_MAX_LENGTH } from '~/lib/email/limits.ts';
import type { action, loader } from './account.server.ts';

export { action, loader } from './account.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Your account · Tend' },
  { name: 'description', content: 'Your name, email and time zone on Tend.' },
];

/** Where times are shown: automatic (the browser's zone, once its script said it) or a zone from the list. */
function TimeZoneSection({ saved, result }: { saved: boolean; result?: FormReply }) {
  const { timeZone } = useLoaderData<typeof loader>();
  const mine = replyValue(result, 'intent') === 'time_zone' ? result : undefined;
  const label = (zone: string) => zone.replaceAll('_', ' ');
  return (
    <section className="card card--narrow stack" id="time-zone" aria-labelledby="time-zone-title">
      <h2 id="time-zone-title">Time zone</h2>
      {saved ? (
        <p className="notice notice--success" role="status">
          Saved.
        </p>
      ) : null}
      <Form method="post" noValidate className="stack">
        <FieldFrame
          id="account-time-zone"
          label="Show times in"
          hint={
            timeZone.now
              ? `Times are named with their zone; it is ${timeZone.now} now. Emails use the workspace's time zone.`
              : "Until your browser has said its zone (or without JavaScript), times are in each workspace's time zone. Emails always are."
          }
          errors={replyErrors(mine, 'time_zone')}
        >
          {(aria) => (
            <select
              id="account-time-zone"
              name="time_zone"
              className="input"
              // A saved choice remounts the select with it.
              key={timeZone.setting ?? ''}
              defaultValue={replyValue(mine, 'time_zone') ?? timeZone.setting ?? ''}
              {...aria}
            >
              <option value="">
                {timeZone.browser
                  ? `Automatic: your browser's (${label(timeZone.browser)})`
                  : "Automatic: your browser's"}
              </option>
              {timeZone.zones.map((zone) => (
                <option key={zone} value={zone}>
                  {label(zone)}
                </option>
              ))}
            </select>
          )}
        </FieldFrame>
        <ErrorList errors={replyFormErrors(mine)} />
        <button type="submit" name="intent" value="time_zone" className="button">
          Save time zone
        </button>
      </Form>
    </section>
  );
}

export default function AccountPage() {
  const { user, saved, notifications, notificationsSaved, signature } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;
  // Which form the action's answer is about: a notification form names its workspace, the signature's
  // and the time zone's their intent; the rest is the account form's.
  const notificationReply =
    replyValue(result, 'workspace') ??
    (['signature', 'time_zone'].includes(replyValue(result, 'intent') ?? '')
      ? replyValue(result, 'intent')
      : undefined);

  return (
    <div className="stack-lg">
      <section className="card card--narrow" aria-labelledby="account-title">
        <h1 id="account-title">Your account</h1>
        {saved ? (
          <p className="notice notice--success" role="status">
            Saved.
          </p>
        ) : null}
        <dl className="facts">
          <dt>Email</dt>
          <dd data-testid="account-email">{user.email}</dd>
        </dl>
        <Form method="post" id="account" noValidate className="stack">
          <Field
            label="Display name"
            hint="Shown to your team and to customers you reply to."
            errors={notificationReply ? undefined : replyErrors(result, 'displayName')}
            inputProps={{
              id: 'account-displayName',
              name: 'displayName',
              type: 'text',
              // A new saved name remounts the input with it; after a refusal the typed text stays.
              key: user.displayName ?? '',
              defaultValue:
                (notificationReply ? undefined : replyValue(result, 'displayName')) ?? user.displayName ?? '',
              autoComplete: 'name',
              required: true,
              maxLength: DISPLAY_NAME_MAX_LENGTH,
            }}
          />
          <ErrorList id="account-error" errors={notificationReply ? undefined : replyErrors(result)} />
          <SubmitButton pending={pending}>Save</SubmitButton>
        </Form>
      </section>
      <TimeZoneSection saved={notificationsSaved === 'time_zone'} result={result} />
      {signature !== null ? (
        <section className="card card--narrow stack" id="signature" aria-labelledby="signature-title">
          <h2 id="signature-title">Signature</h2>
          {notificationsSaved === 'signature' ? (
            <p className="notice notice--success" role="status">
              Saved.
            </p>
          ) : null}
          <Form method="post" noValidate className="stack">
            <TextareaField
              id="signature-body"
              name="signature"
              label="Your signature"
              hint="Put under each reply you write, where you can change or remove it for that reply. Empty: none."
              errors={notificationReply === 'signature' ? replyErrors(result, 'signature') : undefined}
              defaultValue={(notificationReply === 'signature' ? replyValue(result, 'signature') : null) ?? signature}
              maxLength={SIGNATURE_MAX_LENGTH}
              rows={4}
            />
            <button type="submit" name="intent" value="signature" className="button">
              Save signature
            </button>
          </Form>
        </section>
      ) : null}
      {notifications.length ? (
        <section className="card card--narrow stack" id="notifications" aria-labelledby="notifications-title">
          <h2 id="notifications-title">Notifications</h2>
          <p className="lead">
            What you hear of, in each workspace: in the app (the bell in the header, and{' '}
            <a href="/notifications">your notifications</a>) and by email, each time or in one email a day (at 8:00 in
            the workspace's time zone).
          </p>
          {notifications.map(({ workspace, rows }) => (
            <Form
              key={workspace.id}
              method="post"
              noValidate
              className="stack"
              aria-labelledby={`notify-${workspace.id}-title`}
            >
              <h3 id={`notify-${workspace.id}-title`}>{workspace.name}</h3>
              {notificationsSaved === workspace.id ? (
                <p className="notice notice--success" role="status">
                  Saved.
                </p>
              ) : null}
              <input type="hidden" name="workspace" value={workspace.id} />
              <NotificationSettingsFields rows={rows} idPrefix={`notify-${workspace.id}`} />
              <ErrorList
                id={`notify-${workspace.id}-error`}
                errors={notificationReply === workspace.id ? replyFormErrors(result, 'workspace') : undefined}
              />
              <div className="hd-actions">
                <button type="submit" name="intent" value="notifications" className="button">
                  Save notifications
                </button>
                {rows.some((r) => r.own) ? (
                  <button type="submit" name="intent" value="notifications_reset" className="button button--secondary">
                    Use the team's defaults
                  </button>
                ) : null}
              </div>
            </Form>
          ))}
        </section>
      ) : null}
    </div>
  );
}
