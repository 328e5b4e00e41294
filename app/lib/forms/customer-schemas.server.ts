// The forms of the customer and company pages and of ticket custom fields
// (docs/product.md#customers-companies-and-ticket-fields): notes about a customer, their time zone, a company's name,
// the admin's field definitions, and a ticket's field values. Read like every form here (Conform's parseWithZod); the
// database checks the same again (supabase/schemas/58_customers.sql, 58_ticket_fields.sql).
import { z } from 'zod';
import { COMPANY_NAME_MAX_LENGTH } from '../constants.ts';
import { errorMessage } from '../errors/catalogue.server.ts';
import { FIELD_KINDS, fieldInputName, type TicketFieldValue } from '../helpdesk/ticket-fields.ts';
import { UUID_RE } from '../helpdesk/ticket-terms.ts';
import { byIntent } from './helpdesk-schemas.server.ts';
import { TIME_ZONES } from './helpdesk-schemas.server.ts';

const badRequest = { error: errorMessage('bad_request') };
const Id = z.string(badRequest).regex(UUID_RE, badRequest.error);

export const NOTE_MAX_LENGTH = 5000;
const noteMessage = `Write a note of 1 to ${NOTE_MAX_LENGTH.toLocaleString('en')} characters.`;
const NoteBody = z.string({ error: noteMessage }).trim().min(1, noteMessage).max(NOTE_MAX_LENGTH, noteMessage);
const timeZones = new Set(TIME_ZONES);

/** /w/:slug/customers/:id: add, edit or delete a note; set (or clear) the time zone. */
export const CustomerSchema = byIntent([
  z.object({ intent: z.literal('add_note'), body: NoteBody }),
  z.object({ intent: z.literal('edit_note'), note: Id, body: NoteBody }),
  z.object({ intent: z.literal('delete_note'), note: Id }),
  z.object({
    intent: z.literal('time_zone'),
    // Empty: not known.
    time_zone: z
      .string()
      .default('')
      .refine((tz) => tz === '' || timeZones.has(tz), badRequest),
  }),
]);

const companyNameMessage = `Enter a name of up to ${COMPANY_NAME_MAX_LENGTH} characters, or leave it empty for the domain.`;
/** /w/:slug/companies/:domain (admins): the company's name; empty shows the domain again. */
export const CompanySchema = byIntent([
  z.object({
    intent: z.literal('name'),
    name: z.string().trim().max(COMPANY_NAME_MAX_LENGTH, companyNameMessage).default(''),
  }),
]);

export const FIELD_LABEL_MAX_LENGTH = 60;
const labelMessage = `Enter a name of 1 to ${FIELD_LABEL_MAX_LENGTH} characters.`;
const optionsMessage = 'List 1 to 50 choices, one a line, each up to 80 characters and none twice.';
const FieldDefinition = {
  label: z.string({ error: labelMessage }).trim().min(1, labelMessage).max(FIELD_LABEL_MAX_LENGTH, labelMessage),
  required_on_solve: z.literal('on').optional().transform(Boolean),
  // Checked: customers may read the value on their own tickets.
  shown_to_customers: z.literal('on').optional().transform(Boolean),
  position: z.coerce.number(badRequest).int(badRequest).min(0, badRequest).max(1000, badRequest).default(0),
  // A dropdown's choices, one a line (blank lines dropped).
  options: z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(/\r?\n/)
        .map((o) => o.trim())
        .filter(Boolean),
    ),
};
const optionsOk = (options: string[]) =>
  options.length >= 1 &&
  options.length <= 50 &&
  options.every((o) => o.length <= 80) &&
  new Set(options.map((o) => o.toLowerCase())).size === options.length;

/**
 * /w/:slug/settings/fields: add a field, save one (its kind comes along, for the choices' check; the
 * database keeps the stored one), delete one. Only a dropdown keeps its choices.
 */
export const FieldsSchema = byIntent([
  z.object({ intent: z.literal('create'), kind: z.enum(FIELD_KINDS, badRequest), ...FieldDefinition }),
  z.object({ intent: z.literal('update'), field: Id, kind: z.enum(FIELD_KINDS, badRequest), ...FieldDefinition }),
  z.object({ intent: z.literal('delete'), field: Id }),
])
  .superRefine((f, ctx) => {
    if (f.intent !== 'delete' && f.kind === 'dropdown' && !optionsOk(f.options))
      ctx.addIssue({ code: 'custom', path: ['options'], message: optionsMessage });
  })
  .transform((f) => (f.intent !== 'delete' && f.kind !== 'dropdown' ? { ...f, options: [] as string[] } : f));

const KIND_MESSAGES = {
  number: 'Enter a number such as 12 or 4.5.',
  date: errorMessage('date_invalid'),
  dropdown: 'Choose one of the choices.',
  text: 'Keep it under 1,000 characters.',
  checkbox: errorMessage('bad_request'),
} as const;

/** A value as the database stores it (private.ticket_field_value), or null when it doesn't fit. */
function fieldValue(field: Pick<TicketFieldValue, 'kind' | 'options'>, raw: string): string | null {
  const v = raw.trim();
  switch (field.kind) {
    case 'text':
      return v.length <= 1000 ? v : null;
    case 'number':
      return /^-?\d{1,15}(\.\d{1,6})?$/.test(v) ? v : null;
    case 'date': {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v) ? v : null;
    }
    case 'dropdown':
      return field.options.includes(v) ? v : null;
    case 'checkbox':
      return v === 'on' || v === 'true' ? 'true' : null;
  }
}

/** A ticket's fields form as typed (for the reply that keeps it): readFieldValues checks each value. */
export const FieldValuesSchema = z.record(z.string(), z.unknown());

/**
 * A ticket's field values from its form: every field of the ticket, by id (an empty value, or an
 * unticked box, clears it); the fields whose value doesn't fit, with their messages at their inputs.
 */
export function readFieldValues(form: FormData, fields: Pick<TicketFieldValue, 'id' | 'kind' | 'options'>[]) {
  const values: Record<string, string | null> = {};
  const errors: Record<string, string[]> = {};
  for (const field of fields) {
    const raw = form.get(fieldInputName(field.id));
    const text = typeof raw === 'string' ? raw : '';
    if (text.trim() === '') {
      values[field.id] = null;
      continue;
    }
    const value = fieldValue(field, text);
    if (value === null) errors[fieldInputName(field.id)] = [KIND_MESSAGES[field.kind]];
    else values[field.id] = value;
  }
  return { values, errors };
}
