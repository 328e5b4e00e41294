// Attachments (supabase/schemas/40_attachments.sql): the bucket's policies per role through
// supabase.storage, create_ticket/post_message recording the files with their message and holding
// them to the product's rules whatever the bucket let in, the limit on unrecorded uploads, and the
// hourly sweep of files no message claims.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTACHMENT_TYPES } from '../../supabase/functions/_shared/attachment-rules.ts';
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../../supabase/functions/_shared/limits.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE, createUser, userJwt, type Person } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const BUCKET = 'attachments';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

describe('attachments', () => {
  const db = dbFixture();
  const c = {} as Record<Person | 'anon', SupabaseClient>;
  const people: Person[] = [
    'acmeCustomer',
    'acmeCustomer2',
    'globexCustomer',
    'acmeAgent',
    'globexAgent',
    'acmeAdmin',
    'globexAdmin',
  ];

  /** Uploads a small file as `who` to <who>/<workspace>/<ticket>/<new id>/<name>; the id and key, and the error. */
  async function upload(
    who: Person | 'anon',
    ticketId: string,
    name = 'shot.png',
    type = 'image/png',
    o: { bytes?: Uint8Array; workspace?: string; prefix?: string } = {},
  ) {
    const id = crypto.randomUUID();
    const prefix = o.prefix ?? (who === 'anon' ? crypto.randomUUID() : PEOPLE[who].id);
    const key = `${prefix}/${o.workspace ?? ACME}/${ticketId}/${id}/${name}`;
    const { error } = await c[who].storage.from(BUCKET).upload(key, o.bytes ?? PNG, { contentType: type });
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

  it('uploads only under one’s own prefix, to a thread one may write to or a request being opened', async () => {
    const { rows } = await db.sql(`select id from tickets where workspace_id = $1 limit 1`, [
      (await db.sql(`select id from workspaces where slug = 'globex'`)).rows[0].id,
    ]);
    const globexTicket = rows[0].id as string;
    const fresh = () => crypto.randomUUID();
    type Rest<T> = T extends [unknown, ...infer R] ? R : never;
    const cases: [string, Person | 'anon', Rest<Parameters<typeof upload>>, boolean][] = [
      ['anon, anywhere', 'anon', [ticketId], false],
      ['the requester, their ticket', 'acmeCustomer', [ticketId], true],
      ['the requester, a request being opened', 'acmeCustomer', [fresh()], true],
      ['another customer, that ticket', 'acmeCustomer2', [ticketId], false],
      ['an agent, a ticket of their workspace', 'acmeAgent', [ticketId], true],
      [
        'an agent, a ticket of another workspace',
        'acmeAgent',
        [globexTicket, 'x.png', 'image/png', { workspace: GLOBEX }],
        false,
      ],
      ['an admin of another workspace, this ticket', 'globexAdmin', [ticketId], false],
      // A ticket id filed under the wrong workspace is no ticket to write to.
      [
        'an admin, their workspace’s ticket under another workspace',
        'acmeAdmin',
        [ticketId, 'x.png', 'image/png', { workspace: GLOBEX }],
        false,
      ],
      [
        'an admin, a request being opened elsewhere (their own space)',
        'acmeAdmin',
        [fresh(), 'x.png', 'image/png', { workspace: GLOBEX }],
        true,
      ],
      [
        'a request being opened in no workspace',
        'acmeCustomer',
        [fresh(), 'x.png', 'image/png', { workspace: fresh() }],
        false,
      ],
      [
        'the requester, under the agent’s prefix',
        'acmeCustomer',
        [ticketId, 'x.png', 'image/png', { prefix: PEOPLE.acmeAgent.id }],
        false,
      ],
    ];
    for (const [what, who, args, allowed] of cases) {
      const { error } = await upload(who, ...args);
      expect({ what, allowed: !error }).toEqual({ what, allowed });
      if (error)
        expect({ what, statusCode: (error as { statusCode?: string }).statusCode }).toEqual({
          what,
          statusCode: '403',
        });
    }
    // The keys of before: <workspace>/<ticket>/… (an Acme admin wrote under Globex's that way), and loose ones.
    for (const key of [
      `${GLOBEX}/${fresh()}/${fresh()}/x.png`,
      `${ACME}/${ticketId}/${fresh()}/x.png`,
      `${PEOPLE.acmeAdmin.id}/x.png`,
    ]) {
      const { error } = await c.acmeAdmin.storage.from(BUCKET).upload(key, PNG, { contentType: 'image/png' });
      expect({ key, refused: !!error }).toEqual({ key, refused: true });
    }
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
  it('has one definition of the rules, the same as the app’s and the functions’', async () => {
    const { rows } = await db.sql('select extension, mime_type from private.attachment_types() order by 1');
    expect(Object.fromEntries(rows.map((r) => [r.extension, r.mime_type]))).toEqual(ATTACHMENT_TYPES);
    const limits = await db.sql(
      'select private.attachment_max_bytes()::int as bytes, private.attachments_per_message() as files',
    );
    expect(limits.rows[0]).toEqual({ bytes: ATTACHMENT_MAX_BYTES, files: ATTACHMENTS_PER_MESSAGE });
  });

  it('records no file that breaks the rules, whatever storage let in: a copy that changed type, a misnamed file, one over 10 MB', async () => {
    const post = (files: unknown) =>
      c.acmeAgent.rpc('post_message', { p_ticket_id: ticketId, p_body: 'Rule breakers', p_attachments: files });
    // storage-api's copy checks the caller's rights only, not the bucket's types: a PNG becomes an SVG.
    const png = await upload('acmeAgent', ticketId, 'logo.png');
    expect(png.error).toBeNull();
    for (const name of ['logo.png', 'logo.svg']) {
      const id = crypto.randomUUID();
      const destinationKey = `${PEOPLE.acmeAgent.id}/${ACME}/${ticketId}/${id}/${name}`;
      const res = await fetch(`${db.stack.apiUrl}/storage/v1/object/copy`, {
        method: 'POST',
        headers: {
          apikey: db.stack.anonKey,
          Authorization: `Bearer ${await userJwt(db.stack.jwtSecret, PEOPLE.acmeAgent)}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({
          bucketId: BUCKET,
          sourceKey: png.key,
          destinationKey,
          copyMetadata: false,
          metadata: { mimetype: 'image/svg+xml' },
        }),
      });
      expect(res.status).toBe(200);
      const file = { id, file_name: name, storage_name: name };
      expect({ name, error: (await post([file])).error?.message }).toEqual({ name, error: 'attachment_type' });
    }
    // An allowed type under a name that says another: a .pdf that storage holds as a PNG.
    const misnamed = await upload('acmeAgent', ticketId, 'report.pdf', 'image/png');
    expect(misnamed.error).toBeNull();
    expect((await post([misnamed.file])).error?.message).toBe('attachment_type');
    // More than 10 MB as storage recorded it (here the bucket and the project's cap keep such files out;
    // on hosted, a bucket an operator set wider would let them in).
    const big = await upload('acmeAgent', ticketId, 'big.pdf', 'application/pdf');
    await db.sql(
      `update storage.objects set metadata = jsonb_set(metadata, '{size}', to_jsonb(11 * 1024 * 1024)) where name = $1`,
      [big.key],
    );
    expect(big.error).toBeNull();
    expect((await post([big.file])).error?.message).toBe('attachment_too_large');
    const { rows } = await db.sql(`select count(*)::int n from messages where body = 'Rule breakers'`);
    expect(rows[0].n).toBe(0);
    await c.acmeAgent.storage.from(BUCKET).remove([big.key, misnamed.key, png.key]);
  });

  it('holds mailed files to the same rules', async () => {
    const { rows } = await db.sql(`select id from messages where ticket_id = $1 order by created_at limit 1`, [
      ticketId,
    ]);
    const attach = async (file_name: string, mime_type: string, size = 100) => {
      const id = crypto.randomUUID();
      const files = [{ id, file_name, storage_name: file_name, size, mime_type }];
      try {
        const r = await db.sql('select private.attach_received_files($1, $2::jsonb) as files', [
          rows[0].id,
          JSON.stringify(files),
        ]);
        return r.rows[0].files.some((f: { id: string }) => f.id === id) ? 'recorded' : 'missing';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(await attach('invoice.svg', 'image/svg+xml')).toBe('attachment_type');
    expect(await attach('invoice.pdf', 'text/html')).toBe('attachment_type');
    expect(await attach('invoice.pdf', 'application/pdf', 11 * 1024 * 1024)).toBe('attachment_too_large');
    expect(await attach('invoice.pdf', 'application/pdf')).toBe('recorded');
  });

  it('limits what one user holds unrecorded to 20 files and 50 MB; recording or removing frees room', async () => {
    const person = async () => {
      const email = `files-${crypto.randomUUID().slice(0, 8)}@example.test`;
      const id = await createUser(db, email);
      const client = createClient(db.stack.apiUrl, db.stack.anonKey, {
        auth: { persistSession: false, autoRefreshToken: false },
        global: { headers: { Authorization: `Bearer ${await userJwt(db.stack.jwtSecret, { id, email })}` } },
      });
      // A request being opened: files under a ticket id create_ticket takes next.
      const opening = crypto.randomUUID();
      const put = async (name: string, bytes: Uint8Array) => {
        const id2 = crypto.randomUUID();
        const key = `${id}/${ACME}/${opening}/${id2}/${name}`;
        const { error } = await client.storage.from(BUCKET).upload(key, bytes, { contentType: 'application/pdf' });
        return { key, error, file: { id: id2, file_name: name, storage_name: name } };
      };
      return { client, opening, put };
    };
    // Many small files (one agent left 311 of 512 KB in 12 s): the 21st is refused.
    const small = await person();
    const half = new Uint8Array(512 * 1024);
    const kept = [];
    for (let i = 0; i < 20; i++) {
      const r = await small.put(`part${i}.pdf`, half);
      expect({ i, error: r.error }).toEqual({ i, error: null });
      kept.push(r);
    }
    const over = await small.put('part20.pdf', half);
    expect((over.error as { statusCode?: string } | null)?.statusCode).toBe('403');
    await small.client.storage.from(BUCKET).remove([kept[0].key]);
    expect((await small.put('again.pdf', half)).error).toBeNull();

    // Large ones: a full message (5 × 10 MB) always fits, then nothing until it is recorded.
    const large = await person();
    const ten = new Uint8Array(10 * 1024 * 1024);
    const files = [];
    for (let i = 0; i < 5; i++) {
      const r = await large.put(`scan${i}.pdf`, ten);
      expect({ i, error: r.error }).toEqual({ i, error: null });
      files.push(r.file);
    }
    expect((await large.put('one-more.pdf', PNG)).error).not.toBeNull();
    const opened = await large.client.rpc('create_ticket', {
      p_workspace_slug: 'acme',
      p_subject: 'Five scans',
      p_body: 'All of them.',
      p_ticket_id: large.opening,
      p_attachments: files,
    });
    expect(opened.error).toBeNull();
    expect((await large.put('one-more.pdf', PNG)).error).toBeNull();
  });

  it('sweeps files no message claims an hour after their upload, hourly, through the storage API', async () => {
    const job = await db.sql(
      `select jobid, schedule, username, command from cron.job where jobname = 'sweep-attachments'`,
    );
    expect(job.rows[0]).toMatchObject({ schedule: '30 * * * *', username: 'postgres' });
    expect(job.rows[0].command).toContain("private.call_function('sweep-attachments'");
    // The list is the platform's: no user may read it.
    for (const who of ['anon', 'acmeAgent'] as const)
      expect((await c[who].rpc('unrecorded_attachment_objects')).error).not.toBeNull();

    const old = await upload('acmeAgent', ticketId, 'left-behind.png');
    const recent = await upload('acmeAgent', ticketId, 'just-now.png');
    const { rows: versions } = await db.sql('select version from storage.objects where name = $1', [old.key]);
    const bytes = path.join(db.stack.dir, 'storage', BUCKET, ...old.key.split('/'), versions[0].version);
    expect(existsSync(bytes)).toBe(true);
    await db.sql(`update storage.objects set created_at = now() - interval '61 minutes' where name = any($1)`, [
      [old.key, requestFile.key],
    ]);
    const { jobid } = job.rows[0];
    await db.sql(`set role postgres; select cron.alter_job(${Number(jobid)}, schedule := '1 seconds'); reset role`);
    try {
      // Its row goes first and its bytes after the commit, as storage-api deletes: wait for both.
      await waitFor(
        'the sweep to remove the old unrecorded file, row and bytes',
        async () =>
          (await db.sql('select 1 from storage.objects where name = $1', [old.key])).rowCount === 0 &&
          !existsSync(bytes),
        60_000,
      );
    } finally {
      await db.sql(`set role postgres; select cron.alter_job(${Number(jobid)}, schedule := '30 * * * *'); reset role`);
    }
    expect(await readable('acmeAgent', recent.key)).toBe(true);
    // A recorded file stays, however old.
    expect(await readable('acmeCustomer', requestFile.key)).toBe(true);
    await c.acmeAgent.storage.from(BUCKET).remove([recent.key]);
  });
});
