import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PLACEHOLDERS,
  appendToDraft,
  fillPlaceholders,
  placeholderValues,
  unknownPlaceholders,
} from '../../app/lib/helpdesk/canned-replies.ts';

const facts = {
  requester: { name: 'Casey Customer', email: 'casey@example.test' },
  agent: { name: 'Sam Support', email: 'sam@acme.test' },
  ticket: { number: 42, subject: 'Blender arrived broken' },
  workspace: { name: 'Acme Support' },
};

describe('canned replies: placeholders', () => {
  it('fills every placeholder, as often as it is used', () => {
    const body =
      'Hi {{requester.name}} ({{requester.email}}), about #{{ticket.number}} "{{ticket.subject}}": ' +
      '{{agent.name}} of {{workspace.name}}. Thanks, {{requester.name}}!';
    expect(fillPlaceholders(body, placeholderValues(facts))).toBe(
      'Hi Casey Customer (casey@example.test), about #42 "Blender arrived broken": ' +
        'Sam Support of Acme Support. Thanks, Casey Customer!',
    );
  });

  it('reads spaces around a name as the name, and leaves anything else between braces as typed', () => {
    const values = placeholderValues(facts);
    expect(fillPlaceholders('Hi {{ requester.name }}, {{requester.nmae}} {{Requester.Name}}', values)).toBe(
      'Hi Casey Customer, {{requester.nmae}} {{Requester.Name}}',
    );
    expect(fillPlaceholders('{{{agent.name}}} {{ }} {{agent.name} {agent.name}}', values)).toBe(
      '{Sam Support} {{ }} {{agent.name} {agent.name}}',
    );
    // A value that looks like a placeholder is not filled again.
    const sneaky = placeholderValues({ ...facts, ticket: { number: 1, subject: '{{agent.name}}' } });
    expect(fillPlaceholders('{{ticket.subject}}', sneaky)).toBe('{{agent.name}}');
  });

  it('lists the unknown names once each, in order of first use', () => {
    expect(unknownPlaceholders('Hi {{requester.name}}, {{ order.id }} {{x}} {{order.id}} {{}}')).toEqual([
      'order.id',
      'x',
      '',
    ]);
    expect(unknownPlaceholders('No placeholders, {single} braces, {{ unclosed')).toEqual([]);
    expect(unknownPlaceholders(PLACEHOLDERS.map((p) => `{{${p}}}`).join(' '))).toEqual([]);
  });

  it('falls back to the start of the email address, then to a word that reads well', () => {
    const blank = placeholderValues({
      ...facts,
      requester: { name: '  ', email: 'jo.doe@example.test' },
      agent: { name: null, email: 'sam@acme.test' },
    });
    expect(blank['requester.name']).toBe('jo.doe');
    expect(blank['agent.name']).toBe('sam');
    const nothing = placeholderValues({ ...facts, requester: {}, agent: {} });
    expect(nothing['requester.name']).toBe('there');
    expect(nothing['requester.email']).toBe('');
    expect(nothing['agent.name']).toBe('the Acme Support team');
  });

  it('the database knows the same placeholders (supabase/schemas/45_canned_replies.sql)', () => {
    const sql = readFileSync(path.join(__dirname, '../../supabase/schemas/45_canned_replies.sql'), 'utf8');
    const list = /not in \(([^)]*)\)/.exec(sql)?.[1] ?? '';
    expect([...list.matchAll(/'([^']+)'/g)].map((m) => m[1])).toEqual([...PLACEHOLDERS]);
  });
});

describe('canned replies: inserting without JavaScript', () => {
  it('keeps what was typed and appends the reply after a blank line', () => {
    expect(appendToDraft('', 'Reply')).toBe('Reply');
    expect(appendToDraft('  \n', 'Reply')).toBe('Reply');
    expect(appendToDraft('Hello,\n\n', 'Reply')).toBe('Hello,\n\nReply');
    expect(appendToDraft('  Indented', 'Reply')).toBe('  Indented\n\nReply');
  });
});
