// A rule's form: its name; when it runs (an event, or a wait in a status); all or any of up to five
// conditions; up to five actions, in order. Each condition and action is a select and a text (names, not
// ids: a tag's, a member's, a canned reply's title), so it works without JavaScript; the value fields
// suggest the workspace's names (a datalist). "Test this rule" sends the same form and lists the tickets
// it would have matched, without saving.
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  SelectField,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
} from '~/components/forms.tsx';
import { STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import {
  ACTION_TYPES,
  CONDITION_CHOICES,
  NEW_RULE,
  RULE_EVENT_LABELS,
  RULE_EVENTS,
  RULE_LIMITS,
  WAIT_STATUSES,
} from '~/lib/rules/terms.ts';
import type { action, loader } from './rules.server.ts';

const SUGGESTIONS_ID = 'rule-value-suggestions';
// The rows' numbers (c0…c4, a0…a4).
const CONDITION_ROWS = Array.from({ length: RULE_LIMITS.conditions }, (_, i) => i);
const ACTION_ROWS = Array.from({ length: RULE_LIMITS.actions }, (_, i) => i);

type Stored = { id: string; form: Record<string, string> };

export function RuleForm({ stored }: { stored?: Stored }) {
  const answer = useActionData<typeof action>();
  const { workspace } = useLoaderData<typeof loader>();
  const id = stored?.id ?? NEW_RULE;
  const result = answer && 'target' in answer && answer.target === id ? answer.result : undefined;
  const preview = answer && 'target' in answer && answer.target === id ? answer.preview : null;
  const value = (name: string) => replyValue(result, name) ?? stored?.form[name] ?? '';
  const fieldId = (name: string) => `${id}-${name}`;
  return (
    <Form method="post" className="stack" noValidate>
      {stored ? <input type="hidden" name="rule" value={stored.id} /> : null}
      <ErrorList errors={replyFormErrors(result, 'rule', 'event', 'match', 'wait_status')} />
      <Field
        label="Name"
        hint="The ticket’s history names the rule when it acts."
        errors={replyErrors(result, 'name')}
        inputProps={{ id: fieldId('name'), name: 'name', maxLength: RULE_LIMITS.name, defaultValue: value('name') }}
      />
      <fieldset className="hd-rule__part stack">
        <legend>When</legend>
        <SelectField id={fieldId('event')} name="event" label="Event" defaultValue={value('event') || 'ticket_created'}>
          {RULE_EVENTS.map((e) => (
            <option key={e} value={e}>
              {RULE_EVENT_LABELS[e]}
            </option>
          ))}
        </SelectField>
        <div className="hd-rule__row">
          <SelectField
            id={fieldId('wait_status')}
            name="wait_status"
            label="Waiting in status"
            defaultValue={value('wait_status') || 'pending'}
          >
            {WAIT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </SelectField>
          <Field
            label="For business hours"
            hint="Only for “has waited”: 1 to 1,000, in the workspace’s business hours."
            errors={replyErrors(result, 'wait_hours')}
            inputProps={{
              id: fieldId('wait_hours'),
              name: 'wait_hours',
              inputMode: 'numeric',
              size: 6,
              defaultValue: value('wait_hours'),
            }}
          />
        </div>
      </fieldset>
      <fieldset className="hd-rule__part stack">
        <legend>If</legend>
        <SelectField
          id={fieldId('match')}
          name="match"
          label="The ticket matches"
          defaultValue={value('match') || 'all'}
        >
          <option value="all">all of these conditions</option>
          <option value="any">any of these conditions</option>
        </SelectField>
        <p className="field__hint">
          No condition: every ticket. Words match as English words (refund finds “refunds”).
        </p>
        {CONDITION_ROWS.map((i) => (
          <div className="hd-rule__row" key={`c${i}`}>
            <SelectField
              id={fieldId(`c${i}`)}
              name={`c${i}`}
              label={`Condition ${i + 1}`}
              defaultValue={value(`c${i}`)}
            >
              <option value="">—</option>
              {CONDITION_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </SelectField>
            <Field
              label={`Value ${i + 1}`}
              errors={replyErrors(result, `c${i}_value`) ?? replyErrors(result, `c${i}`)}
              inputProps={{
                id: fieldId(`c${i}_value`),
                name: `c${i}_value`,
                list: SUGGESTIONS_ID,
                maxLength: RULE_LIMITS.value,
                defaultValue: value(`c${i}_value`),
              }}
            />
          </div>
        ))}
      </fieldset>
      <fieldset className="hd-rule__part stack">
        <legend>Then</legend>
        <ErrorList errors={replyErrors(result, 'a0')} />
        {ACTION_ROWS.map((i) => (
          <div className="hd-rule__row" key={`a${i}`}>
            <SelectField id={fieldId(`a${i}`)} name={`a${i}`} label={`Action ${i + 1}`} defaultValue={value(`a${i}`)}>
              <option value="">—</option>
              {Object.entries(ACTION_TYPES).map(([type, label]) => (
                <option key={type} value={type}>
                  {label}
                </option>
              ))}
            </SelectField>
            <Field
              label={`Action value ${i + 1}`}
              errors={replyErrors(result, `a${i}_value`) ?? (i ? replyErrors(result, `a${i}`) : undefined)}
              inputProps={{
                id: fieldId(`a${i}_value`),
                name: `a${i}_value`,
                list: SUGGESTIONS_ID,
                maxLength: RULE_LIMITS.note,
                defaultValue: value(`a${i}_value`),
              }}
            />
          </div>
        ))}
        <p className="field__hint">
          A reply or note goes out in the assignee’s name, else in the name of the admin who saved the rule.
        </p>
      </fieldset>
      <div className="hd-actions">
        <SubmitButton name="intent" value={stored ? 'update' : 'create'}>
          {stored ? 'Save rule' : 'Add rule'}
        </SubmitButton>
        <SubmitButton name="intent" value="test" className="button button--secondary">
          Test this rule
        </SubmitButton>
      </div>
      {preview ? (
        <section className="hd-canned__preview" aria-live="polite" aria-labelledby={fieldId('preview')}>
          <h3 id={fieldId('preview')}>
            {preview.length
              ? `It would have matched ${preview.length === 20 ? 'these latest 20' : preview.length} ticket${preview.length === 1 ? '' : 's'}`
              : 'It would have matched none of the latest tickets'}
          </h3>
          <ul className="hd-list" data-testid="rule-preview">
            {preview.map((t) => (
              <li key={t.id}>
                <a href={`/w/${workspace.slug}/tickets/${t.number}`}>
                  #{t.number} <bdi>{t.subject}</bdi>
                </a>{' '}
                <span className="muted small">{STATUS_LABELS[t.status]}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Form>
  );
}

/** The value fields' suggestions: the workspace's tags, members and canned replies, by name. */
export function ValueSuggestions() {
  const { suggestions } = useLoaderData<typeof loader>();
  return (
    <datalist id={SUGGESTIONS_ID}>
      {[...new Set(suggestions)].map((s) => (
        <option key={s} value={s} />
      ))}
    </datalist>
  );
}
