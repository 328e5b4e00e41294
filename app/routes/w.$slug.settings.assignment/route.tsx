// Automatic assignment (admins only, docs/product.md "Automatic assignment"): off, round robin or least
// open tickets, a cap of open tickets per member, and who is available now with their backlog.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import type { action, loader } from './assignment.server.ts';

export { action, loader } from './assignment.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Assignment · ${data.workspace.name} · Tend` : 'Assignment · Tend' },
];

const MODES = [
  { value: 'off', label: 'Off', hint: 'Agents claim or assign tickets themselves.' },
  { value: 'round_robin', label: 'Round robin', hint: 'Each new ticket goes to the next available member in turn.' },
  {
    value: 'least_open',
    label: 'Fewest open tickets',
    hint: 'Each new ticket goes to the available member with the least work.',
  },
] as const;

export default function AssignmentPage() {
  const { workspace, saved, mode, maxOpen, members } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const result = answer?.result;
  const chosen = replyValue(result, 'mode') ?? mode;
  return (
    <section className="stack-lg" aria-labelledby="assignment-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="assignment"
        title="Automatic assignment"
        titleId="assignment-title"
        notice={saved ? 'Saved.' : null}
      />
      <Form method="post" noValidate className="card stack">
        <h2>How new tickets are handed out</h2>
        <ErrorList errors={replyFormErrors(result, 'mode')} />
        <fieldset className="pr-targets">
          <legend>Mode</legend>
          {MODES.map((m) => (
            <label key={m.value} className="pr-check">
              <input type="radio" name="mode" value={m.value} defaultChecked={chosen === m.value} /> {m.label}
              <span className="muted small">— {m.hint}</span>
            </label>
          ))}
        </fieldset>
        <Field
          label="Most open tickets per member"
          hint="New, open and pending tickets; empty for no cap. Someone at the cap gets nothing new until they solve one."
          errors={replyErrors(result, 'max_open')}
          inputProps={{
            id: 'assignment-cap',
            name: 'max_open',
            inputMode: 'numeric',
            defaultValue: replyValue(result, 'max_open') ?? (maxOpen === null ? '' : String(maxOpen)),
            autoComplete: 'off',
            maxLength: 6,
          }}
        />
        <p className="muted small">
          Reopened tickets whose assignee is away are handed out again. A ticket that finds nobody waits, unassigned,
          until someone becomes available (each member switches that in the inbox).
        </p>
        <SubmitButton name="intent" value="save">
          Save
        </SubmitButton>
      </Form>
      <section className="card stack" aria-labelledby="available-title">
        <h2 id="available-title">Members now</h2>
        <div className="rp-table-wrap">
          <table className="rp-table" data-testid="availability">
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Available</th>
                <th scope="col" className="rp-num">
                  Open tickets
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.user_id}>
                  <th scope="row">{m.name}</th>
                  <td>{m.available ? 'Available' : 'Away'}</td>
                  <td className="rp-num">{m.open}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </section>
  );
}
