// Ticket custom fields (admins only, docs/product.md#customers-companies-and-ticket-fields): the workspace's fields —
// text, number, date, dropdown or checkbox — which agents fill in on the ticket page and the CSV export carries.
// "Required on solve": an agent can't solve a ticket without it (the database refuses, field_required). "Shown
// to customers": the requester may read its value (internal otherwise). A field's kind stays as made.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import {
  ErrorList,
  Field,
  SelectField,
  SubmitButton,
  TextareaField,
  replyErrors,
  replyFormErrors,
  replyValue,
} from '~/components/forms.tsx';
import { FIELD_KIND_LABELS, FIELD_KINDS, type FieldKind, NEW_FIELD as NEW } from '~/lib/helpdesk/ticket-fields.ts';
import type { action, loader } from './fields.server.ts';

export { action, loader } from './fields.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Ticket fields · ${data.workspace.name} · Tend` : 'Ticket fields · Tend' },
  { name: 'description', content: 'The workspace’s custom ticket fields: what agents record on each ticket.' },
];

interface Stored {
  id: string;
  label: string;
  kind: FieldKind;
  options: string[];
  required_on_solve: boolean;
  internal: boolean;
  position: number;
}

/** A field's form: a new one (kind chosen once) or a stored one. */
function FieldForm({ stored }: { stored?: Stored }) {
  const answer = useActionData<typeof action>();
  const id = stored?.id ?? NEW;
  const result = answer?.target === id ? answer.result : undefined;
  const checked = (name: string, fallback: boolean) => (result ? replyValue(result, name) === 'on' : fallback);
  const kind = (replyValue(result, 'kind') as FieldKind | undefined) ?? stored?.kind ?? 'text';
  return (
    <Form method="post" className="stack" noValidate>
      {stored ? (
        <>
          <input type="hidden" name="field" value={stored.id} />
          <input type="hidden" name="kind" value={stored.kind} />
        </>
      ) : null}
      <ErrorList errors={replyFormErrors(result, 'field', 'kind', 'position')} />
      <Field
        label="Name"
        errors={replyErrors(result, 'label')}
        inputProps={{
          id: `${id}-label`,
          name: 'label',
          maxLength: 60,
          required: true,
          defaultValue: replyValue(result, 'label') ?? stored?.label ?? '',
        }}
      />
      {stored ? (
        <p className="small">Kind: {FIELD_KIND_LABELS[stored.kind]}</p>
      ) : (
        <SelectField id={`${id}-kind`} name="kind" label="Kind" defaultValue={kind}>
          {FIELD_KINDS.map((k) => (
            <option key={k} value={k}>
              {FIELD_KIND_LABELS[k]}
            </option>
          ))}
        </SelectField>
      )}
      {!stored || stored.kind === 'dropdown' ? (
        <TextareaField
          id={`${id}-options`}
          name="options"
          label="Choices (dropdown)"
          hint="One a line. Only a dropdown has choices."
          rows={3}
          defaultValue={replyValue(result, 'options') ?? stored?.options.join('\n') ?? ''}
          errors={replyErrors(result, 'options')}
        />
      ) : null}
      <div className="hd-check">
        <input
          type="checkbox"
          id={`${id}-required`}
          name="required_on_solve"
          defaultChecked={checked('required_on_solve', stored?.required_on_solve ?? false)}
        />
        <label htmlFor={`${id}-required`}>Required to solve a ticket</label>
      </div>
      <div className="hd-check">
        <input
          type="checkbox"
          id={`${id}-shown`}
          name="shown_to_customers"
          defaultChecked={checked('shown_to_customers', stored ? !stored.internal : false)}
        />
        <label htmlFor={`${id}-shown`}>Customers may see its value</label>
      </div>
      <input type="hidden" name="position" value={stored?.position ?? 0} />
      <SubmitButton name="intent" value={stored ? 'update' : 'create'}>
        {stored ? 'Save field' : 'Add field'}
      </SubmitButton>
    </Form>
  );
}

export default function TicketFieldsPage() {
  const { workspace, notice, fields } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { key: arrival } = useLocation();
  return (
    <section className="stack-lg hd-ticket-fields" aria-labelledby="fields-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="fields"
        title="Ticket fields"
        titleId="fields-title"
        notice={notice}
      />
      <section className="card stack" aria-labelledby="new-field-title">
        <h2 id="new-field-title">New field</h2>
        <FieldForm key={answer?.target === NEW ? 'refused' : arrival} />
      </section>
      <section className="card stack" aria-labelledby="saved-fields-title">
        <h2 id="saved-fields-title">Fields ({fields.length})</h2>
        <p className="muted small">
          Agents fill them in on the ticket page. Filtering the inbox by a field isn't there yet.
        </p>
        {fields.length ? (
          <ul className="hd-list" data-testid="ticket-fields">
            {fields.map((f) => (
              <li key={f.id} className="hd-note" data-testid="ticket-field">
                <h3 className="hd-canned__title">{f.label}</h3>
                <p className="muted small">
                  {FIELD_KIND_LABELS[f.kind]}
                  {f.kind === 'dropdown' ? `: ${f.options.join(', ')}` : ''}
                  {f.required_on_solve ? ' · required to solve' : ''}
                  {f.internal ? ' · internal' : ' · customers see it'}
                </p>
                <details
                  className="hd-confirm"
                  open={answer?.target === f.id && replyValue(answer.result, 'intent') === 'update'}
                >
                  <summary className="button button--secondary">
                    Edit<span className="visually-hidden"> {f.label}</span>
                  </summary>
                  <div className="hd-confirm__body">
                    <FieldForm stored={f} />
                  </div>
                </details>
                <details className="hd-confirm">
                  <summary className="button button--ghost">
                    Delete<span className="visually-hidden"> {f.label}</span>
                  </summary>
                  <Form method="post" className="hd-confirm__body stack">
                    <input type="hidden" name="field" value={f.id} />
                    <p>Delete “{f.label}”? Its values on every ticket go too.</p>
                    <SubmitButton name="intent" value="delete" className="button button--danger">
                      Delete for good<span className="visually-hidden"> {f.label}</span>
                    </SubmitButton>
                  </Form>
                </details>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No fields yet. Add what your team records on every ticket, such as an order number.</p>
        )}
      </section>
    </section>
  );
}
