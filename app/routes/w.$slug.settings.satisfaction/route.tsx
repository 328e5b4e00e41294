// The satisfaction survey (admins only, docs/product.md "Satisfaction ratings"): whether solving a
// request asks its requester, and the question asked (in the email's subject and the portal).
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { SURVEY_QUESTION_MAX_LENGTH } from '~/lib/satisfaction/limits.ts';
import { SURVEY_ANSWERS, SURVEY_DAYS } from '~/lib/satisfaction/ratings.ts';
import type { action, loader } from './satisfaction.server.ts';

export { action, loader } from './satisfaction.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Satisfaction · ${data.workspace.name} · Tend` : 'Satisfaction · Tend' },
];

export default function SatisfactionSettingsPage() {
  const { workspace, saved, enabled, question } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>()?.result;
  // A refused form shows what was sent: the checkbox as it was ticked.
  const on = result ? replyValue(result, 'enabled') === 'on' : enabled;
  return (
    <section className="stack-lg" aria-labelledby="satisfaction-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="satisfaction"
        title="Satisfaction survey"
        titleId="satisfaction-title"
        notice={saved ? 'Saved.' : null}
      />
      <Form method="post" noValidate className="card stack">
        <p>
          When a request is solved, its requester is asked one question by email and on the request's page, with three
          one-click answers ({SURVEY_ANSWERS.map((a) => a.label).join(', ')}) and room for a comment. They can change
          their answer for {SURVEY_DAYS} days. Each solve asks once; the reports show the answers.
        </p>
        <ErrorList errors={replyFormErrors(result, 'enabled')} />
        <label className="pr-check">
          <input type="checkbox" name="enabled" defaultChecked={on} key={String(on)} /> Ask requesters when their
          request is solved
        </label>
        <Field
          label="Question"
          hint="The email's subject and the first line of the survey."
          errors={replyErrors(result, 'question')}
          inputProps={{
            id: 'survey-question',
            name: 'question',
            defaultValue: replyValue(result, 'question') ?? question,
            maxLength: SURVEY_QUESTION_MAX_LENGTH,
            required: true,
            autoComplete: 'off',
          }}
        />
        <SubmitButton>Save</SubmitButton>
      </Form>
    </section>
  );
}
