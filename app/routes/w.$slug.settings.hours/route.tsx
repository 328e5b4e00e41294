// Business hours and SLA targets (admins only, docs/product.md "Business hours and SLA targets"): the
// week's opening hours in the workspace's time zone (several periods a day), holidays, and per
// priority the first-response, next-response and resolution targets in business or calendar time.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { formatDayOfYear } from '~/lib/promises/holidays.ts';
import { PRIORITY_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import type { action, loader } from './hours.server.ts';

export { action, loader } from './hours.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Hours and targets · ${data.workspace.name} · Tend` : 'Hours and targets · Tend' },
];

export default function HoursPage() {
  const { workspace, timeZone, notice, aroundTheClock, days, holidays, targets, cannedReplies, afterHoursReply } =
    useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { key: arrival } = useLocation();
  const result = answer?.result;
  const intent = replyValue(result, 'intent');
  // A refused form keeps what was typed; any other form starts from what is stored.
  const typed = (form: string, name: string, stored: string) =>
    intent === form ? (replyValue(result, name) ?? '') : stored;
  const errorsOf = (form: string, name: string) => (intent === form ? replyErrors(result, name) : undefined);

  return (
    <section className="stack-lg" aria-labelledby="hours-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="hours"
        title="Hours and targets"
        titleId="hours-title"
        notice={notice}
      />

      <Form method="post" noValidate className="card stack" key={`hours ${intent === 'hours' ? 'refused' : arrival}`}>
        <h2>Opening hours</h2>
        <p className="muted small">
          In {timeZone.replaceAll('_', ' ')} (the workspace's time zone, in Settings). Write each day's periods as{' '}
          <code>08:00–12:00, 13:30–18:00</code>; leave a day empty when you are closed.{' '}
          {aroundTheClock ? 'With no hours at all, the team counts as open around the clock.' : null}
        </p>
        <ErrorList errors={intent === 'hours' ? replyFormErrors(result) : undefined} />
        <div className="pr-week">
          {days.map((d) => (
            <Field
              key={d.key}
              label={d.label}
              errors={errorsOf('hours', d.key)}
              inputProps={{
                id: `hours-${d.key}`,
                name: d.key,
                defaultValue: typed('hours', d.key, d.value),
                placeholder: 'Closed',
                autoComplete: 'off',
                maxLength: 200,
              }}
            />
          ))}
        </div>
        <SubmitButton name="intent" value="hours">
          Save hours
        </SubmitButton>
      </Form>

      <section className="card stack" aria-labelledby="holidays-title">
        <h2 id="holidays-title">Holidays</h2>
        <p className="muted small">Whole days closed, whatever the weekday.</p>
        {holidays.length ? (
          <ul className="hd-list" data-testid="holidays">
            {holidays.map((h) => (
              <li key={h.day} className="pr-holiday">
                <span>
                  <strong>{formatDayOfYear(h.day)}</strong> {h.name}
                </span>
                <Form method="post">
                  <input type="hidden" name="day" value={h.day} />
                  <SubmitButton name="intent" value="remove_holiday" className="button button--ghost">
                    Remove<span className="visually-hidden"> {h.name}</span>
                  </SubmitButton>
                </Form>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No holidays yet.</p>
        )}
        <Form
          method="post"
          noValidate
          className="stack"
          key={`holiday ${intent === 'add_holiday' ? 'refused' : arrival}`}
          aria-label="Add a holiday"
        >
          <ErrorList
            errors={intent === 'add_holiday' || intent === 'remove_holiday' ? replyFormErrors(result) : undefined}
          />
          <div className="pr-row">
            <Field
              label="Day"
              errors={errorsOf('add_holiday', 'day')}
              inputProps={{
                id: 'holiday-day',
                name: 'day',
                type: 'date',
                required: true,
                defaultValue: typed('add_holiday', 'day', ''),
              }}
            />
            <Field
              label="Name"
              errors={errorsOf('add_holiday', 'name')}
              inputProps={{
                id: 'holiday-name',
                name: 'name',
                required: true,
                maxLength: 80,
                defaultValue: typed('add_holiday', 'name', ''),
              }}
            />
          </div>
          <SubmitButton name="intent" value="add_holiday">
            Add holiday
          </SubmitButton>
        </Form>
      </section>

      <Form
        method="post"
        noValidate
        className="card stack"
        key={`targets ${intent === 'targets' ? 'refused' : arrival}`}
      >
        <h2>SLA targets</h2>
        <p className="muted small">
          How soon the team answers and solves, per priority: <code>30m</code>, <code>4h</code>, <code>1h 30m</code>, or
          empty for none. The clock pauses while a ticket is pending and stops when it is solved.
        </p>
        <ErrorList errors={intent === 'targets' ? replyFormErrors(result) : undefined} />
        {targets.map((t) => (
          <fieldset key={t.priority} className="pr-targets">
            <legend>{PRIORITY_LABELS[t.priority]}</legend>
            <div className="pr-row">
              {(
                [
                  ['first', 'First response', t.first],
                  ['next', 'Next response', t.next],
                  ['resolution', 'Resolution', t.resolution],
                ] as const
              ).map(([what, label, stored]) => (
                <Field
                  key={what}
                  label={label}
                  errors={errorsOf('targets', `${t.priority}_${what}`)}
                  inputProps={{
                    id: `target-${t.priority}-${what}`,
                    name: `${t.priority}_${what}`,
                    defaultValue: typed('targets', `${t.priority}_${what}`, stored),
                    autoComplete: 'off',
                    maxLength: 40,
                  }}
                />
              ))}
            </div>
            <label className="pr-check">
              <input
                type="checkbox"
                name={`${t.priority}_business`}
                defaultChecked={
                  intent === 'targets' ? replyValue(result, `${t.priority}_business`) === 'on' : t.business
                }
              />{' '}
              Count business hours only
            </label>
          </fieldset>
        ))}
        <SubmitButton name="intent" value="targets">
          Save targets
        </SubmitButton>
      </Form>

      <Form method="post" noValidate className="card stack" key={`after-hours ${arrival}`}>
        <h2>Outside business hours</h2>
        <p className="muted small">
          A request that arrives while the team is closed is acknowledged by email with this canned reply, followed by
          when the team opens next (“We're closed right now: the team will answer from Monday, 30 November 2026 at
          08:00”).
        </p>
        <ErrorList errors={intent === 'after_hours' ? replyFormErrors(result, 'canned_reply_id') : undefined} />
        <div className="field">
          <label htmlFor="after-hours-reply">Acknowledgement</label>
          <select
            id="after-hours-reply"
            name="canned_reply_id"
            className="input"
            defaultValue={afterHoursReply ?? ''}
            data-testid="after-hours-reply"
          >
            <option value="">None: no acknowledgement</option>
            {cannedReplies.map((r) => (
              <option key={r.id} value={r.id}>
                {r.title}
              </option>
            ))}
          </select>
        </div>
        {cannedReplies.length ? null : (
          <p className="muted small">
            Write one first in <a href={`/w/${workspace.slug}/settings/replies`}>Canned replies</a>.
          </p>
        )}
        <SubmitButton name="intent" value="after_hours">
          Save acknowledgement
        </SubmitButton>
      </Form>
    </section>
  );
}
