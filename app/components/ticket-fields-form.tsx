// A ticket's custom fields as a form (docs/product.md#customers-companies-and-ticket-fields):
// /w/:slug/tickets/:number/fields, where it posts, shows it (again with the refused values kept at their fields), and
// the ticket page's sidebar shows it as markup rendered on the server, so the ticket page carries no code for it
// (docs/decisions/006-javascript-budget.md). A plain HTML form: the same with JavaScript or without.
import { ErrorList, type FormReply, replyErrors, replyFormErrors, replyValue } from './forms.tsx';
import { fieldInputName, type TicketFieldValue } from '~/lib/helpdesk/ticket-fields.ts';

function Control({ field, result }: { field: TicketFieldValue; result?: FormReply }) {
  const name = fieldInputName(field.id);
  const errors = replyErrors(result, name);
  const shown = result ? (replyValue(result, name) ?? '') : (field.value ?? '');
  const aria = {
    id: name,
    name,
    'aria-invalid': errors ? (true as const) : undefined,
    'aria-describedby': errors ? `${name}-error` : undefined,
  };
  const label = `${field.label}${field.required_on_solve ? ' (required to solve)' : ''}`;
  if (field.kind === 'checkbox')
    return (
      <div className="field">
        <div className="hd-check">
          <input type="checkbox" {...aria} defaultChecked={result ? shown === 'on' : field.value === 'true'} />
          <label htmlFor={name}>{label}</label>
        </div>
        <ErrorList id={aria['aria-describedby']} errors={errors} />
      </div>
    );
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      {field.kind === 'dropdown' ? (
        <select {...aria} className="input" defaultValue={shown}>
          <option value="">—</option>
          {field.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...aria}
          className="input"
          type={field.kind === 'date' ? 'date' : 'text'}
          inputMode={field.kind === 'number' ? 'decimal' : undefined}
          maxLength={1000}
          defaultValue={shown}
        />
      )}
      <ErrorList id={aria['aria-describedby']} errors={errors} />
    </div>
  );
}

export function TicketFieldsForm({
  action,
  fields,
  result,
}: {
  /** Where the form posts: /w/:slug/tickets/:number/fields. */
  action: string;
  fields: TicketFieldValue[];
  result?: FormReply;
}) {
  return (
    <form method="post" action={action} className="stack hd-ticket-fields" noValidate aria-label="Ticket fields">
      <ErrorList errors={replyFormErrors(result)} />
      {fields.map((f) => (
        <Control key={f.id} field={f} result={result} />
      ))}
      <button type="submit" className="button button--secondary">
        Save fields
      </button>
    </form>
  );
}
