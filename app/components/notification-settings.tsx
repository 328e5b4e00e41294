// The notification settings' fields, one group per event: how it is emailed and whether the bell shows
// it. The member's own page (/account) says where a choice differs from the team's default; the admins'
// page (/w/:slug/settings/notifications) edits those defaults with the same fields.
import { EMAIL_CHOICES, type NotificationEmail, type NotificationKind } from '~/lib/notifications/kinds.ts';

export interface PreferenceRow {
  kind: NotificationKind;
  label: string;
  hint: string;
  email: NotificationEmail;
  in_app: boolean;
  own: boolean;
  team_email: NotificationEmail;
  team_in_app: boolean;
}

const emailLabel = (value: NotificationEmail) => EMAIL_CHOICES.find((c) => c.value === value)?.label ?? value;

export function NotificationSettingsFields({
  rows,
  idPrefix,
  team = false,
}: {
  rows: PreferenceRow[];
  idPrefix: string;
  /** The team's defaults (admins), not a member's own. */
  team?: boolean;
}) {
  return (
    <div className="notify-settings">
      {rows.map((row) => {
        const id = `${idPrefix}-${row.kind}`;
        const email = team ? row.team_email : row.email;
        const inApp = team ? row.team_in_app : row.in_app;
        return (
          // Keyed by the values: a save or reset that changes them shows them (the fields are uncontrolled).
          <fieldset key={`${row.kind}-${email}-${inApp}`} className="notify-row" aria-describedby={`${id}-hint`}>
            <legend>{row.label}</legend>
            <p id={`${id}-hint`} className="field__hint">
              {row.hint}
              {team ? null : row.own ? (
                <>
                  {' '}
                  Your choice; the team's default: {emailLabel(row.team_email).toLowerCase()} by email,
                  {row.team_in_app ? ' in the app' : ' not in the app'}.
                </>
              ) : (
                " (The team's default.)"
              )}
            </p>
            <div className="notify-row__controls">
              <div className="field">
                <label htmlFor={`${id}-email`}>Email</label>
                <select id={`${id}-email`} name={`email_${row.kind}`} defaultValue={email} className="input">
                  {EMAIL_CHOICES.map(({ value, label }) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </div>
              <label className="checkbox">
                <input type="checkbox" name={`in_app_${row.kind}`} defaultChecked={inApp} /> In the app (the bell)
              </label>
            </div>
          </fieldset>
        );
      })}
    </div>
  );
}
