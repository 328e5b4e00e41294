// The pure parts of the local stack's CLI commands: what `status -o env`, `migration list|up` and
// `test db` decide and print, and how the pg_dump bridge knows an answer is complete.
import { describe, expect, it } from 'vitest';
import { parseOverrides, statusValues, toDotenv } from '@tend/supabase-local/testing';
import { formatVersion, migrationTable, pendingVersions, versionAt } from '@tend/supabase-local/testing';
import { fileFailed, readTap, report } from '@tend/supabase-local/testing';
import { answerEnd } from '@tend/supabase-local/testing';
import { explainMissingExtension } from '@tend/supabase-local/testing';
import type { StatusFile } from '@tend/supabase-local';

const status: StatusFile = {
  apiUrl: 'http://127.0.0.1:54321',
  dbUrl: 'postgresql://postgres:postgres@127.0.0.1:54322/postgres',
  mailUrl: 'http://127.0.0.1:54324',
  smtpPort: 54325,
  anonKey: 'anon.jwt',
  serviceRoleKey: 'service.jwt',
  jwtSecret: 'secret',
  publishableKey: 'sb_publishable_x',
  secretKey: 'sb_secret_y',
  pid: 1,
  processes: [],
};

describe('status -o env', () => {
  it("prints the CLI's variable names, sorted and double-quoted", () => {
    const env = toDotenv(statusValues(status, { functions: true }));
    expect(env.split('\n')).toEqual([
      'ANON_KEY="anon.jwt"',
      'API_URL="http://127.0.0.1:54321"',
      'DB_URL="postgresql://postgres:postgres@127.0.0.1:54322/postgres"',
      'FUNCTIONS_URL="http://127.0.0.1:54321/functions/v1"',
      'INBUCKET_URL="http://127.0.0.1:54324"',
      'JWT_SECRET="secret"',
      'MAILPIT_URL="http://127.0.0.1:54324"',
      'PUBLISHABLE_KEY="sb_publishable_x"',
      'REST_URL="http://127.0.0.1:54321/rest/v1"',
      'SECRET_KEY="sb_secret_y"',
      'SERVICE_ROLE_KEY="service.jwt"',
    ]);
  });

  it('leaves out FUNCTIONS_URL when the edge runtime is off, as the CLI leaves out what does not run', () => {
    expect(statusValues(status, { functions: false })).not.toHaveProperty('FUNCTIONS_URL');
  });

  it('renames a variable with --override-name and refuses an unknown key', () => {
    const values = statusValues(status, {
      functions: false,
      overrides: parseOverrides(['api.url=NEXT_PUBLIC_SUPABASE_URL', 'auth.anon_key=NEXT_PUBLIC_SUPABASE_ANON_KEY']),
    });
    expect(values.NEXT_PUBLIC_SUPABASE_URL).toBe(status.apiUrl);
    expect(values.NEXT_PUBLIC_SUPABASE_ANON_KEY).toBe('anon.jwt');
    expect(values).not.toHaveProperty('API_URL');
    expect(() => parseOverrides(['api.nope=X'])).toThrow(/api\.url/);
  });

  it('escapes as godotenv does', () => {
    expect(toDotenv({ A: 'say "hi"\n$x' })).toBe('A="say \\"hi\\"\\n\\$x"');
  });
});

describe('migrations', () => {
  it('versions are UTC timestamps, shown as dates in the list', () => {
    expect(versionAt(new Date('2024-06-01T08:09:10.123Z'))).toBe('20240601080910');
    expect(formatVersion('20240601080910')).toBe('2024-06-01 08:09:10');
    expect(formatVersion('1')).toBe('1');
  });

  it('lists local and applied versions side by side in time order', () => {
    const table = migrationTable(['20240101000000', '20240301000000'], ['20240101000000']).split('\n');
    expect(table[0]).toMatch(/Local\s+\| Remote\s+\| Time \(UTC\)/);
    expect(table[2]).toMatch(/20240101000000 \| 20240101000000 \| 2024-01-01 00:00:00/);
    expect(table[3]).toMatch(/20240301000000 \|\s+\| 2024-03-01 00:00:00/);
  });

  it('applies what is new, and refuses a gap or a version the folder lacks as the CLI does', () => {
    expect(pendingVersions(['1', '2', '3'], ['1'], false)).toEqual(['2', '3']);
    expect(() => pendingVersions(['1', '2', '3'], ['1', '3'], false)).toThrow(/inserted before the last migration/);
    expect(pendingVersions(['1', '2', '3'], ['1', '3'], true)).toEqual(['2']);
    expect(() => pendingVersions(['1'], ['1', '2'], true)).toThrow(/not found in local migrations directory/);
  });
});

describe('test db', () => {
  it('passes a file whose TAP meets its plan, TODO failures included', () => {
    const r = readTap('a.sql', ['1..3', 'ok 1 - a', 'not ok 2 - b # TODO later', 'ok 3']);
    expect(fileFailed(r)).toBe(false);
    expect(report([r])).toMatch(/^a\.sql \.+ ok\nFiles=1, Tests=3\nResult: PASS$/);
  });

  it('fails a file with a failing test, no plan, fewer tests than planned, or an error', () => {
    const failing = readTap('f.sql', ['1..2', 'ok 1', 'not ok 2 - b', '# Failed test 2: "b"']);
    expect(fileFailed(failing)).toBe(true);
    expect(report([failing])).toContain('not ok 2 - b\n# Failed test 2: "b"\nFailed 1/2 subtests');
    expect(fileFailed(readTap('n.sql', ['ok 1']))).toBe(true);
    expect(report([readTap('s.sql', ['1..3', 'ok 1'])])).toContain('planned 3 tests but ran 1');
    expect(report([{ ...readTap('e.sql', []), error: 'relation "x" does not exist' }])).toContain(
      '# relation "x" does not exist',
    );
  });
});

describe('pg_dump bridge', () => {
  const msg = (type: string, body: Buffer = Buffer.alloc(0)) => {
    const head = Buffer.alloc(5);
    head.write(type, 0);
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  };
  const int = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };

  it('waits for ReadyForQuery, and for an authentication step that needs the client', () => {
    const rows = Buffer.concat([msg('T'), msg('D'), msg('C')]);
    expect(answerEnd(rows)).toBe(-1);
    const done = Buffer.concat([rows, msg('Z', Buffer.from('I'))]);
    expect(answerEnd(done)).toBe(done.length);
    expect(answerEnd(msg('R', int(10)))).toBe(9); // SASL: the client speaks next
    expect(answerEnd(Buffer.concat([msg('R', int(12)), msg('R', int(0))]))).toBe(-1); // SASLFinal, Ok: more comes
    expect(answerEnd(msg('Z', Buffer.from('I')).subarray(0, 4))).toBe(-1);
  });
});

describe('missing extensions', () => {
  it('names the extension, who has it, and what to do; nothing for other errors', () => {
    const why = explainMissingExtension('extension "http" is not available');
    expect(why).toContain('"http"');
    expect(why).toContain('Hosted Supabase projects have "http"');
    expect(why).toContain('pg_net');
    expect(explainMissingExtension('extension "made_up" is not available')).toContain('create it only where it exists');
    expect(explainMissingExtension('relation "x" does not exist')).toBeUndefined();
  });
});
