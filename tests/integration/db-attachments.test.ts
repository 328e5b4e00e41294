// Attachments (supabase/schemas/40_attachments.sql): the bucket's policies per role through
// supabase.storage, and create_ticket/post_message recording the files with their message.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, type Person } from '../support/db.ts';

const BUCKET = 'attachments';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

describe('attachments', () => {
  const db = dbFixture();
  const c = {} as Record<Person | 'anon', SupabaseClient>;
  const people: Person[] = ['acmeCustomer', 'acmeCustomer2', 'globexCustomer', 'acmeAgent', 'globexAgent', 'acmeAdmin'];

  /** Uploads a small file as `who` to <workspace>/<ticket>/<new id>/<name>; the id and key, and the error. */
  async function upload(who: Person | 'anon', ticketId: string, name = 'shot.png', type = 'image/png') {
    const id = crypto.randomUUID();
    const key = `${ACME}/${ticketId}/${id}/${name}`;
    const { error } = await c[who].storage.from(BUCKET).upload(key, PNG, { contentType: type });
    return { id, key, error, file: { id, file_name: name, storage_name: name } };
  }

  const readable = async (who: Person | 'anon', key: string) => {
    const { data, error } = await c[who].storage.from(BUCKET).download(key);
    return !error && data !== null;
  };

  let ticketId: string;
  let requestFile: Awaited<ReturnType<typeof upload>>;
  let replyFile: Awaited<ReturnType<typeof upload>>;
  let noteFile: Awaited<ReturnType<typeof upload>>;

  beforeAll(async () => {
    c.anon = db.anon();
    for (const p of people) c[p] = await db.as(p);
    // A new request: the files go under the ticket id create_ticket is then given.
    ticketId = crypto.randomUUID();
    requestFile = await upload('acmeCustomer', ticketId, 'screen shot.png');
    expect(requestFile.error).toBeNull();
    const { error } = await c.acmeCustomer.rpc('create_ticket', {
      p_workspace_slug: 'acme',
      p_subject: 'With a file',
      p_body: 'See the screenshot.',
      p_ticket_id: ticketId,
      p_attachments: [{ ...requestFile.file, file_name: 'screen/shot?.png' }],
    });
    expect(error).toBeNull();
    replyFile = await upload('acmeAgent', ticketId, 'fix.pdf', 'application/pdf');
    noteFile = await upload('acmeAgent', ticketId, 'internal.txt', 'text/plain');
    const reply = await c.acmeAgent.rpc('post_message', {
      p_ticket_id: ticketId,
      p_body: 'Here is the fix.',
      p_attachments: [replyFile.file],
    });
    expect(reply.error).toBeNull();
    const note = await c.acmeAgent.rpc('post_message', {
      p_ticket_id: ticketId,
      p_body: 'Customer is on the old plan.',
      p_kind: 'note',
      p_attachments: [noteFile.file],
    });
    expect(note.error).toBeNull();
  });

  it('records the files with their messages: the name as given, size and type as storage has them', async () => {
    const { rows } = await db.sql(
      `select a.file_name, a.size, a.mime_type, a.path, m.kind from attachments a join messages m on m.id = a.message_id
        where a.ticket_id = $1 order by a.created_at`,
      [ticketId],
    );
    expect(rows).toEqual([
      {
        file_name: 'screen/shot?.png',
        size: String(PNG.length),
        mime_type: 'image/png',
        path: requestFile.key,
        kind: 'reply',
      },
      {
        file_name: 'fix.pdf',
        size: String(PNG.length),
        mime_type: 'application/pdf',
        path: replyFile.key,
        kind: 'reply',
      },
      {
        file_name: 'internal.txt',
        size: String(PNG.length),
        mime_type: 'text/plain',
        path: noteFile.key,
        kind: 'note',
      },
    ]);
  });

  it('reads files as the thread is read: requester its replies, the workspace everything, others nothing', async () => {
    const expected: Record<Person | 'anon', [boolean, boolean, boolean]> = {
      anon: [false, false, false],
      acmeCustomer: [true, true, false],
      acmeCustomer2: [false, false, false],
      globexCustomer: [false, false, false],
      acmeAgent: [true, true, true],
      acmeAdmin: [true, true, true],
      globexAgent: [false, false, false],
      acmeAgent2: [true, true, true],
      globexAdmin: [false, false, false],
    };
    for (const who of ['anon', ...people] as const) {
      const got = [
        await readable(who, requestFile.key),
        await readable(who, replyFile.key),
        await readable(who, noteFile.key),
      ];
      expect({ who, got }).toEqual({ who, got: expected[who] });
      const signed = await c[who].storage.from(BUCKET).createSignedUrl(noteFile.key, 60);
      expect({ who, note: !signed.error }).toEqual({ who, note: expected[who][2] });
    }
    // The rows follow the same rule.
    const { data } = await c.acmeCustomer.from('attachments').select('file_name').eq('ticket_id', ticketId);
    expect(data?.map((r) => r.file_name).sort()).toEqual(['fix.pdf', 'screen/shot?.png']);
    const { data: none } = await c.globexAgent.from('attachments').select('id').eq('ticket_id', ticketId);
    expect(none).toEqual([]);
  });

  it('uploads only to a thread one may write to', async () => {
    expect((await upload('anon', ticketId)).error).not.toBeNull();
    expect((await upload('acmeCustomer2', ticketId)).error).not.toBeNull();
    expect((await upload('globexAgent', ticketId)).error).not.toBeNull();
    expect((await upload('acmeCustomer', ticketId)).error).toBeNull();
    expect((await upload('acmeAdmin', ticketId)).error).toBeNull();
    // Not a workspace/ticket/attachment/name key.
    const { error } = await c.acmeCustomer.storage.from(BUCKET).upload(`${ACME}/loose.png`, PNG, {
      contentType: 'image/png',
    });
    expect(error).not.toBeNull();
  });

  it('keeps a recorded file; an unsent upload is its uploader’s to read and remove', async () => {
    const pending = await upload('acmeCustomer', ticketId, 'draft.png');
    expect(await readable('acmeCustomer', pending.key)).toBe(true);
    expect(await readable('acmeAgent', pending.key)).toBe(false);
    const removed = await c.acmeCustomer.storage.from(BUCKET).remove([pending.key, requestFile.key]);
    expect(removed.data?.map((o) => o.name)).toEqual([pending.key]);
    expect(await readable('acmeCustomer', requestFile.key)).toBe(true);
    const { error } = await c.acmeCustomer.storage
      .from(BUCKET)
      .upload(requestFile.key, PNG, { contentType: 'image/png', upsert: true });
    expect(error).not.toBeNull();
  });

  it('refuses files that are not the caller’s uploads in that thread, and more than five', async () => {
    const post = (who: Person, files: unknown) =>
      c[who].rpc('post_message', { p_ticket_id: ticketId, p_body: 'More', p_attachments: files });
    const never = { id: crypto.randomUUID(), file_name: 'x.png', storage_name: 'x.png' };
    expect((await post('acmeCustomer', [never])).error?.message).toBe('not_found');
    // The agent's upload, claimed by the requester.
    const agents = await upload('acmeAgent', ticketId, 'agent.png');
    expect((await post('acmeCustomer', [agents.file])).error?.message).toBe('not_found');
    const six = [];
    for (let i = 0; i < 6; i++) six.push((await upload('acmeCustomer', ticketId, `f${i}.png`)).file);
    expect((await post('acmeCustomer', six)).error?.message).toBe('too_many_attachments');
    expect((await post('acmeCustomer', [{ ...never, storage_name: 'a/b.png' }])).error?.message).toBe('bad_request');
    // Nothing of the refused posts was written.
    const { rows } = await db.sql(`select count(*)::int n from messages where ticket_id = $1 and body = 'More'`, [
      ticketId,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('the bucket refuses files over 10 MB and types outside the list', async () => {
    const big = await c.acmeCustomer.storage
      .from(BUCKET)
      .upload(`${ACME}/${ticketId}/${crypto.randomUUID()}/big.pdf`, new Uint8Array(11 * 1024 * 1024), {
        contentType: 'application/pdf',
      });
    expect(big.error).toMatchObject({ statusCode: '413' });
    const exe = await upload('acmeCustomer', ticketId, 'setup.exe', 'application/x-msdownload');
    expect(exe.error).toMatchObject({ statusCode: '415' });
  });
});
