// The helpdesk forms read with Conform like sign-in's: one schema per intent, the typed text sent
// back, errors at their field, and what only a hand-made request gets wrong as bad_request.
import { describe, expect, it } from 'vitest';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import {
  InboxSchema,
  NewRequestSchema,
  PortalRequestSchema,
  SEND_STATUSES,
  TicketSchema,
  WorkspaceSchema,
} from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { inboxFilters } from '~/lib/helpdesk/inbox-query.server.ts';
import { NO_ASSIGNEE } from '~/lib/helpdesk/ticket-terms.ts';

function form(entries: Record<string, string>) {
  const data = new FormData();
  for (const [k, v] of Object.entries(entries)) data.set(k, v);
  return data;
}

const bad = [errorMessage('bad_request')];

describe('helpdesk forms', () => {
  it('keeps a refused workspace form and names each field', () => {
    const reply = parseSubmission(form({ name: '', slug: 'login' }), WorkspaceSchema).reply();
    expect(reply.error).toEqual({
      name: ['Enter a name of 1 to 80 characters.'],
      slug: ['That address is reserved. Choose another.'],
    });
    expect(reply.initialValue).toMatchObject({ slug: 'login' });
    const ok = parseSubmission(form({ name: ' Acme ', slug: 'Acme-Support' }), WorkspaceSchema);
    expect(ok.status === 'success' && ok.value).toEqual({ name: 'Acme', slug: 'acme-support' });
  });

  it('asks for a subject and a message on a new request', () => {
    const reply = parseSubmission(form({ subject: '', body: '   ' }), NewRequestSchema).reply();
    expect(reply.error).toEqual({ subject: ['Enter a subject of 1 to 200 characters.'], body: ['Write a message.'] });
  });

  it('picks the schema by intent; an unknown or missing intent is bad_request', () => {
    for (const schema of [PortalRequestSchema, TicketSchema, InboxSchema]) {
      for (const entries of [{}, { intent: 'drop_tables' }] as Record<string, string>[]) {
        const submission = parseSubmission(form(entries), schema);
        expect(submission.status).toBe('error');
        expect(submission.reply().error).toEqual({ intent: bad });
      }
    }
    const solve = parseSubmission(form({ intent: 'solve', body: '' }), PortalRequestSchema);
    expect(solve.status === 'success' && solve.value).toEqual({ intent: 'solve' });
  });

  it('reads the composer: defaults, a malformed traffic-cop id dropped, tampered choices refused', () => {
    const sent = parseSubmission(form({ intent: 'send', body: 'Hello', last_seen_message_id: 'nope' }), TicketSchema);
    expect(sent.status === 'success' && sent.value).toEqual({
      intent: 'send',
      body: 'Hello',
      kind: 'reply',
      set_status: 'keep',
      last_seen_message_id: undefined,
    });
    const tampered = parseSubmission(
      form({ intent: 'send', body: 'Hi', kind: 'shout', set_status: 'closed' }),
      TicketSchema,
    );
    expect(tampered.reply().error).toEqual({ kind: bad, set_status: bad });
    expect(tampered.reply().initialValue).toMatchObject({ body: 'Hi' });
  });

  it('reads the sidebar: status, priority, assignee (nobody or a member id)', () => {
    expect(parseSubmission(form({ intent: 'status', status: 'exploded' }), TicketSchema).reply().error).toEqual({
      status: bad,
    });
    expect(parseSubmission(form({ intent: 'priority', priority: 'whenever' }), TicketSchema).reply().error).toEqual({
      priority: bad,
    });
    expect(parseSubmission(form({ intent: 'assignee', assignee: 'x' }), TicketSchema).reply().error).toEqual({
      assignee: [errorMessage('assignee_not_member')],
    });
    const nobody = parseSubmission(form({ intent: 'assignee', assignee: '' }), TicketSchema);
    expect(nobody.status === 'success' && nobody.value).toEqual({ intent: 'assignee' });
  });

  it('reads the sidebar\'s one "Save" (without JavaScript): the three fields and what the page showed', () => {
    const saved = parseSubmission(
      form({
        intent: 'save',
        status: 'pending',
        priority: 'high',
        assignee: '',
        from_status: 'open',
        from_priority: 'normal',
        from_assignee: 'none',
      }),
      TicketSchema,
    );
    expect(saved.status === 'success' && saved.value).toEqual({
      intent: 'save',
      status: 'pending',
      priority: 'high',
      from_status: 'open',
      from_priority: 'normal',
      from_assignee: 'none',
    });
  });

  it('takes the older word for no assignee ("nobody", a page rendered before) as the one word, "none"', () => {
    expect(NO_ASSIGNEE).toBe('none');
    const older = parseSubmission(form({ intent: 'assign_me', from_assignee: 'nobody' }), TicketSchema);
    expect(older.status === 'success' && older.value).toEqual({ intent: 'assign_me', from_assignee: NO_ASSIGNEE });
    // The inbox's filter takes the same word, and the older one from a bookmark.
    expect(inboxFilters(new URLSearchParams('assignee=none')).assignee).toBe(NO_ASSIGNEE);
    expect(inboxFilters(new URLSearchParams('assignee=nobody')).assignee).toBe(NO_ASSIGNEE);
    expect(inboxFilters(new URLSearchParams('assignee=somebody')).assignee).toBe('');
  });

  it('offers "send and set status" only the statuses agents set: no New, no Closed', () => {
    expect(SEND_STATUSES).toEqual(['keep', 'open', 'pending', 'solved']);
    for (const status of ['new', 'closed']) {
      const refused = parseSubmission(form({ intent: 'send', body: 'Hi', set_status: status }), TicketSchema);
      expect(refused.reply().error).toEqual({ set_status: bad });
    }
  });
});
