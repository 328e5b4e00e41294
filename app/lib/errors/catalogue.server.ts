// The error catalogue's codes that only the server gives (docs/product.md §8), with the ones the browser
// shows too (catalogue.ts): the whole catalogue, for loaders, actions and the server's modules.
import {
  DISPLAY_NAME_MAX_LENGTH,
  EMAIL_LINK_VALID_HOURS,
  FOLLOWERS_PER_TICKET,
  REPORT_MAX_DAYS,
  SUBJECT_MAX_LENGTH,
} from '../constants.ts';
import { EMAIL_FOOTER_MAX_LENGTH, LOGO_MAX_MB, SENDER_NAME_MAX_LENGTH, SIGNATURE_MAX_LENGTH } from '../email/limits.ts';
import { SURVEY_COMMENT_MAX_LENGTH, SURVEY_QUESTION_MAX_LENGTH } from '../satisfaction/limits.ts';
import { SURVEY_DAYS } from '../satisfaction/ratings.ts';
import { browserCatalogue } from './catalogue.ts';

const WITH_A_CODE = ' Sign in with a code instead.';

const catalogue = {
  ...browserCatalogue,
  email_invalid: { status: 400, message: () => 'Enter a valid email address.' },
  code_invalid: {
    status: 400,
    message: () => 'That code is wrong or has expired. Check the latest email or send a new code.',
  },
  // The address's ceiling of wrong codes (docs/decisions/020-sign-in-limits.md): only a new code works.
  code_used_up: {
    status: 429,
    message: () => 'That code was entered wrong too many times and no longer works. Send a new code.',
  },
  // The one-click link of a notification email (docs/decisions/035-email-sign-in-links.md).
  link_invalid: { status: 400, message: () => `This sign-in link isn't valid.${WITH_A_CODE}` },
  link_used: { status: 410, message: () => `This sign-in link was already used.${WITH_A_CODE}` },
  link_expired: {
    status: 410,
    message: () => `This sign-in link has expired (it worked for ${EMAIL_LINK_VALID_HOURS} hours).${WITH_A_CODE}`,
  },
  invalid_transition: {
    status: 409,
    message: (p: { from: string; to: string }) => `A ticket can't go from ${p.from} to ${p.to}.`,
  },
  ticket_closed: { status: 409, message: () => 'This request is closed. Open a follow-up request.' },
  slug_taken: { status: 409, message: () => 'That address is taken.' },
  invitation_invalid: { status: 410, message: () => 'This invitation is no longer valid. Ask an admin for a new one.' },
  already_member: { status: 409, message: () => 'That person is already a member of this workspace.' },
  invitation_email_mismatch: { status: 403, message: () => 'This invitation was sent to another email address.' },
  last_admin: { status: 409, message: () => 'A workspace needs at least one admin.' },
  ticket_changed: {
    status: 409,
    message: () => 'Someone replied while you were writing. Read the new message; your draft is kept.',
  },
  assignee_not_member: { status: 400, message: () => 'Only members of this workspace can be assigned.' },
  // The statement timeout stopped a search (public.inbox, supabase/schemas/50_inbox.sql): the page keeps the query.
  search_timeout: {
    status: 503,
    message: () => 'This search took too long. Narrow it with a view or a filter, or add a word.',
  },
  // Added by the app (not in docs/product.md §8 yet): a field rule and the pages for errors no user can cause.
  // A sidebar change made on an older view of the ticket (the optimistic check): who changed what.
  ticket_field_changed: {
    status: 409,
    message: (p: { who: string; change: string }) => `${p.who} ${p.change} a moment ago. This is how it is now.`,
  },
  // Canned replies (/w/:slug/settings/replies).
  title_taken: { status: 409, message: () => 'A canned reply with that title already exists.' },
  placeholder_unknown: {
    status: 400,
    message: (p: { name: string }) => `"{{${p.name}}}" isn't a placeholder. Use one from the list.`,
  },
  // The reports' custom range.
  date_invalid: { status: 400, message: () => 'Enter a date such as 2026-01-31.' },
  date_range_invalid: {
    status: 400,
    message: () => `Choose an end date on or after the start date, at most ${REPORT_MAX_DAYS} days later.`,
  },
  // The help center's editor (/w/:slug/help).
  article_too_long: {
    status: 400,
    // ARTICLE_BODY_MAX_LENGTH (app/lib/help/limits.ts, kept out of every page's bundle; a unit test holds them equal).
    message: () => 'Keep the article under 50,000 characters.',
  },
  article_changed: {
    status: 409,
    message: () => 'Someone saved this article meanwhile. Your text is kept: save to replace theirs.',
  },
  collection_taken: { status: 409, message: () => 'That collection exists already.' },
  // Tags (docs/product.md#tags): a name is an identifier (TAG_NAME_RE, app/lib/helpdesk/tags.ts).
  tag_invalid: {
    status: 400,
    message: () => 'A tag is 1 to 40 lower-case letters, digits, - or _, starting with a letter or digit.',
  },
  tag_create_forbidden: {
    status: 403,
    message: () => 'Only admins can create tags in this workspace. Choose an existing tag.',
  },
  tag_taken: { status: 409, message: () => 'That tag exists already. Merge the two instead.' },
  tag_merge_same: { status: 400, message: () => 'Choose another tag to merge into.' },
  // Bulk changes in the inbox (docs/product.md#bulk-changes).
  bulk_action_missing: { status: 400, message: () => 'Choose what to do with the selected tickets.' },
  bulk_none_selected: { status: 400, message: () => 'Select at least one ticket, or all matching this view.' },
  // Saved views of the inbox (docs/product.md#views-saved-views-mentions-and-search-the-inbox).
  view_name_invalid: { status: 400, message: () => 'Name the view in 1 to 60 characters.' },
  view_name_taken: { status: 409, message: () => 'A view has that name already. Choose another name.' },
  view_share_forbidden: { status: 403, message: () => 'Only admins can share a view with the team.' },
  view_limit: {
    status: 409,
    message: () => 'That makes more than 30 views. Delete one you no longer use first.',
  },
  // Snooze (docs/product.md#snooze).
  snooze_invalid: { status: 400, message: () => 'Choose a time in the future, at most a year from now.' },
  ticket_not_snoozable: {
    status: 409,
    message: () => 'A solved or closed ticket can’t be snoozed.',
  },
  // Merging tickets (docs/product.md#merge).
  merge_same: { status: 400, message: () => 'Choose another ticket: a ticket can’t be merged into itself.' },
  ticket_merged: {
    status: 409,
    message: () => 'One of these tickets was merged already. Merge into the ticket it went to.',
  },
  merge_closed: { status: 409, message: () => 'A closed ticket can’t be merged.' },
  // Spam, Trash and split (docs/product.md#spam-and-trash, docs/product.md#split).
  ticket_in_spam: { status: 409, message: () => 'This ticket is in Spam. Mark it as not spam first.' },
  ticket_in_trash: { status: 409, message: () => 'This ticket is in Trash. Restore it first.' },
  message_moved: {
    status: 409,
    message: () => 'That message isn’t in this ticket any more: it was split off or merged meanwhile.',
  },
  split_not_customer: { status: 400, message: () => 'Only a message of the requester can become a new ticket.' },
  split_only_message: { status: 409, message: () => 'A ticket’s only message can’t be split off.' },
  merge_needs_tickets: {
    status: 400,
    message: () => 'Check 2 or more tickets on this page to merge: the oldest keeps them all.',
  },
  merge_target_missing: {
    status: 404,
    message: () => 'No other ticket here matches. Enter its number, such as 12, or words of its subject.',
  },
  // Followers of a ticket (docs/decisions/064-followers.md).
  follower_is_requester: { status: 409, message: () => 'That is the requester: they get every reply already.' },
  follower_is_member: {
    status: 409,
    message: () => 'That is a member of this workspace: members see the ticket in the inbox, not as followers.',
  },
  followers_full: {
    status: 409,
    message: () => `A ticket has at most ${FOLLOWERS_PER_TICKET} followers. Remove one before adding another.`,
  },
  // A new request's subject over the limit: cut at a word, the rest moved to the message, and shown again
  // to check (docs/product.md §5), never cut out of sight.
  subject_cut: {
    status: 400,
    message: () =>
      `A subject has at most ${SUBJECT_MAX_LENGTH} characters, so it was cut after a whole word and the rest put at the top of the message. Check both, then send.`,
  },
  // Business hours and SLA targets (/w/:slug/settings/hours).
  hours_invalid: {
    status: 400,
    message: () =>
      'Write hours as 08:00–12:00, 13:30–18:00: each period ends after it starts, by 24:00, and none overlap.',
  },
  sla_invalid: {
    status: 400,
    message: () => 'Write a target as minutes or hours, such as 30m, 4h or 1h 30m (at most a year).',
  },
  holiday_taken: { status: 409, message: () => 'That day is a holiday already.' },
  // Automatic assignment (/w/:slug/settings/assignment).
  cap_invalid: { status: 400, message: () => 'Enter a cap of 1 to 10,000 open tickets, or leave it empty for none.' },
  // A workspace's email settings (/w/:slug/settings/email).
  sender_name_invalid: {
    status: 400,
    message: () => `Enter a sender name of up to ${SENDER_NAME_MAX_LENGTH} characters, without quotes or < >.`,
  },
  sender_address_invalid: {
    status: 400,
    message: () => 'Enter the address emails come from, such as support@acme.example.',
  },
  accent_invalid: { status: 400, message: () => 'Choose a colour such as #1d4ed8.' },
  footer_too_long: { status: 400, message: () => `Keep the footer under ${EMAIL_FOOTER_MAX_LENGTH} characters.` },
  dkim_selector_invalid: {
    status: 400,
    message: () =>
      'Enter the DKIM selector your email provider gives (letters, digits, dots and hyphens), or leave it empty.',
  },
  logo_invalid: { status: 415, message: () => 'Choose a PNG, JPEG, GIF or WebP image for the logo.' },
  logo_too_large: { status: 413, message: () => `Choose a logo of at most ${LOGO_MAX_MB} MB.` },
  signature_too_long: { status: 400, message: () => `Keep the signature under ${SIGNATURE_MAX_LENGTH} characters.` },
  sender_domain_unverified: {
    status: 409,
    message: (p: { domain: string }) =>
      `${p.domain} isn't verified yet: the DNS records below weren't all found. DNS changes can take an hour to show.`,
  },
  // A satisfaction survey's rating link (/support/:slug/requests/:number/rating; 92_satisfaction.sql).
  survey_invalid: {
    status: 404,
    message: () => "This rating link isn't valid. Use the link in the latest email about this request.",
  },
  survey_expired: {
    status: 410,
    message: () =>
      `This survey has closed: an answer can be given or changed for ${SURVEY_DAYS} days after the request is solved.`,
  },
  question_invalid: {
    status: 400,
    message: () => `Enter a question of 1 to ${SURVEY_QUESTION_MAX_LENGTH} characters, on one line.`,
  },
  comment_too_long: {
    status: 400,
    message: () => `Keep the comment under ${SURVEY_COMMENT_MAX_LENGTH.toLocaleString('en')} characters.`,
  },
  // Ticket custom fields (/w/:slug/settings/fields, the ticket page; supabase/schemas/58_ticket_fields.sql).
  field_required: {
    status: 409,
    message: (p: { field: string }) => `Fill in “${p.field}” before solving this ticket.`,
  },
  field_value_invalid: {
    status: 400,
    message: (p: { field: string }) => `“${p.field}” can't take that value. Choose or enter one that fits the field.`,
  },
  field_label_taken: { status: 409, message: () => 'A field with that name exists already.' },
  display_name_invalid: { status: 400, message: () => `Enter a name of 1 to ${DISPLAY_NAME_MAX_LENGTH} characters.` },
  too_large: { status: 413, message: () => 'That was more than a form can send. Shorten it and try again.' },
  // Rules (/w/:slug/settings/rules; supabase/schemas/95_rules.sql raises the unknown references and the limit).
  rule_name_invalid: { status: 400, message: () => 'Enter a name of 1 to 80 characters.' },
  rule_name_taken: { status: 409, message: () => 'A rule with that name exists already.' },
  rule_limit: { status: 409, message: () => 'A workspace has at most 50 rules. Delete one first.' },
  rule_wait_invalid: {
    status: 400,
    message: () => 'Choose a status other than closed and a wait of 1 to 1,000 business hours.',
  },
  rule_value_invalid: { status: 400, message: (p: { what: string }) => `Enter ${p.what}.` },
  rule_needs_action: { status: 400, message: () => 'Add at least one action: what the rule does.' },
  rule_tag_unknown: {
    status: 400,
    message: () => 'There’s no tag of that name here. Enter an existing tag, or add it on the Tags page first.',
  },
  rule_agent_unknown: {
    status: 400,
    message: () => 'That isn’t a member of this workspace. Enter a member’s name as the Members page shows it.',
  },
  rule_reply_unknown: {
    status: 400,
    message: () => 'There’s no canned reply with that title. Enter the title of one from the Canned replies page.',
  },
  // New conversation (/w/:slug/tickets/new): with a customer, not with oneself.
  requester_is_you: { status: 400, message: () => 'Enter the customer’s email address, not your own.' },
} as const;

type Catalogue = typeof catalogue;
export type ErrorCode = keyof Catalogue;
export type ErrorParams<C extends ErrorCode> = Parameters<Catalogue[C]['message']>;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(catalogue, value);
}

export function errorMessage<C extends ErrorCode>(code: C, ...params: ErrorParams<C>): string {
  return (catalogue[code].message as (...p: ErrorParams<C>) => string)(...params);
}

export function errorStatus(code: ErrorCode): number {
  return catalogue[code].status;
}

/** The JSON body of catalogue error responses. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
}
