// A workspace's name and address (slug), as onboarding creates them and settings changes them: one set
// of fields with the same limits as their schema (WorkspaceSchema, app/lib/forms/helpdesk-schemas.server.ts).
import type { ReactNode } from 'react';
import { Field, type FormReply, replyErrors, replyValue } from '~/components/forms.tsx';
import { WORKSPACE_NAME_MAX_LENGTH } from '~/lib/constants.ts';
import { SLUG_MAX_LENGTH, SLUG_MIN_LENGTH, SLUG_PATTERN } from '~/lib/forms/fields.ts';

export function WorkspaceFields({
  result,
  idPrefix = '',
  name = '',
  slug = '',
  addressHint,
}: {
  /** The refused submission: its values and errors come back. */
  result: FormReply | null | undefined;
  /** Before the inputs' ids (`<prefix>name`, `<prefix>slug`). */
  idPrefix?: string;
  /** What the fields start with. */
  name?: string;
  slug?: string;
  /** Where the address shows, before the rule for it. */
  addressHint: ReactNode;
}) {
  return (
    <>
      <Field
        label="Workspace name"
        errors={replyErrors(result, 'name')}
        inputProps={{
          id: `${idPrefix}name`,
          name: 'name',
          type: 'text',
          defaultValue: replyValue(result, 'name') ?? name,
          required: true,
          maxLength: WORKSPACE_NAME_MAX_LENGTH,
          autoComplete: 'organization',
        }}
      />
      <Field
        label="Address"
        hint={
          <>
            {addressHint} {SLUG_MIN_LENGTH}–{SLUG_MAX_LENGTH} lower-case letters, digits and hyphens.
          </>
        }
        errors={replyErrors(result, 'slug')}
        inputProps={{
          id: `${idPrefix}slug`,
          name: 'slug',
          type: 'text',
          defaultValue: replyValue(result, 'slug') ?? slug,
          required: true,
          minLength: SLUG_MIN_LENGTH,
          maxLength: SLUG_MAX_LENGTH,
          pattern: SLUG_PATTERN,
          autoCapitalize: 'none',
          spellCheck: false,
        }}
      />
    </>
  );
}
