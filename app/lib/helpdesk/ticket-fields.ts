// Ticket custom fields (docs/product.md#customers-companies-and-ticket-fields): the kinds an admin picks from, and a
// field as the ticket page and the settings page show it. The database checks each value
// (supabase/schemas/58_ticket_fields.sql); the forms check the same first (app/lib/forms/customer-schemas.server.ts).
import type { Tables } from '../supabase/database.types.ts';
import { FIELD_KINDS } from './ticket-terms.ts';

export { FIELD_KINDS };
export type FieldKind = (typeof FIELD_KINDS)[number];
export const FIELD_KIND_LABELS: Record<FieldKind, string> = {
  text: 'Text',
  number: 'Number',
  date: 'Date',
  dropdown: 'Dropdown',
  checkbox: 'Checkbox',
};

/** A field with this ticket's value (null: none), as public.ticket_field_list answers. */
export type TicketFieldValue = Pick<
  Tables<'ticket_fields'>,
  'id' | 'label' | 'kind' | 'options' | 'required_on_solve'
> & {
  value: string | null;
};

/** The form field that carries a ticket field's value. */
export const fieldInputName = (id: string) => `field_${id}`;

/** The settings page's form for a field not added yet (its answers name the form they belong to). */
export const NEW_FIELD = 'new';
