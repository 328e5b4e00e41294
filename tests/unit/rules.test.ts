// A rule said in several places is said once, or its copies are held to the one: the database's checks
// to the app's constants and the functions' limits, the open statuses to one SQL function each, the
// refusals the database raises to the error catalogue.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as constants from '~/lib/constants.ts';
import * as help from '~/lib/help/limits.ts';
import * as email from '~/lib/email/limits.ts';
import { SLUG_MAX_LENGTH, SLUG_MIN_LENGTH } from '~/lib/forms/fields.ts';
import { isErrorCode } from '~/lib/errors/catalogue.server.ts';
import * as views from '~/lib/helpdesk/inbox-views.ts';
import * as limits from '../../supabase/functions/_shared/limits.ts';

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const SCHEMAS = readdirSync(path.join(ROOT, 'supabase', 'schemas'))
  .filter((f) => f.endsWith('.sql'))
  .map((f) => ({ file: `supabase/schemas/${f}`, sql: read(`supabase/schemas/${f}`) }));

/** Every number `pattern` captures in `file`. */
function numbers(file: string, pattern: RegExp): number[] {
  return [...read(file).matchAll(pattern)].map((m) => Number(m[1]));
}

describe('sizes, counts and lengths', () => {
  it('the functions share theirs with the app: app/lib/constants.ts has each, with the same value', () => {
    const shared = Object.entries(limits);
    expect(shared.length).toBeGreaterThan(5);
    for (const [name, value] of shared)
      expect([name, (constants as Record<string, unknown>)[name]]).toEqual([name, value]);
  });

  it("the database's checks are the app's limits", () => {
    const c = constants;
    const pinned: [string, RegExp, number][] = [
      ['supabase/schemas/20_tickets.sql', /char_length\(subject\) between 1 and (\d+)/g, c.SUBJECT_MAX_LENGTH],
      [
        'supabase/schemas/54_spam_trash_split.sql',
        /private\.trash_days\(\) returns integer\nlanguage sql immutable set search_path = '' as \$\$ select (\d+) \$\$/g,
        c.TRASH_DAYS,
      ],
      [
        'supabase/schemas/54_followers.sql',
        /followers_max\(\) returns integer\s+language sql immutable set search_path = '' as \$\$ select (\d+) \$\$/g,
        c.FOLLOWERS_PER_TICKET,
      ],
      ['supabase/schemas/30_messages.sql', /char_length\(body\) between 1 and (\d+)/g, c.MESSAGE_MAX_LENGTH],
      [
        'supabase/schemas/10_workspaces.sql',
        /char_length\(display_name\) between 1 and (\d+)/g,
        c.DISPLAY_NAME_MAX_LENGTH,
      ],
      ['supabase/schemas/10_workspaces.sql', /'display_name', ''\)\), (\d+)\)/g, c.DISPLAY_NAME_MAX_LENGTH],
      ['supabase/schemas/10_workspaces.sql', /char_length\(name\) between 1 and (\d+)/g, c.WORKSPACE_NAME_MAX_LENGTH],
      [
        'supabase/schemas/58_customers.sql',
        /create table public\.companies \((?:\n.*)*?\n\s+name text not null check \(char_length\(name\) between 1 and (\d+)\)/g,
        c.COMPANY_NAME_MAX_LENGTH,
      ],
      ['supabase/schemas/10_workspaces.sql', /char_length\(slug\) between \d+ and (\d+)/g, SLUG_MAX_LENGTH],
      ['supabase/schemas/10_workspaces.sql', /char_length\(slug\) between (\d+)/g, SLUG_MIN_LENGTH],
      ['supabase/schemas/10_workspaces.sql', /char_length\(email\) <= (\d+)/g, c.EMAIL_MAX_LENGTH],
      ['supabase/schemas/40_attachments.sql', /char_length\(file_name\) between 1 and (\d+)/g, c.FILE_NAME_MAX_LENGTH],
      ['supabase/schemas/40_attachments.sql', /f->>'storage_name'\), (\d+)\)/g, c.FILE_NAME_MAX_LENGTH],
      [
        'supabase/schemas/45_canned_replies.sql',
        /char_length\(title\) between 1 and (\d+)/g,
        c.CANNED_REPLY_TITLE_MAX_LENGTH,
      ],
      [
        'supabase/schemas/45_canned_replies.sql',
        /char_length\(body\) between 1 and (\d+)/g,
        c.CANNED_REPLY_BODY_MAX_LENGTH,
      ],
      [
        'supabase/config.toml',
        /^\[storage(?:\.buckets\.(?:attachments|help))?\]\n(?:[^[\n].*\n|\n)*?file_size_limit = "(\d+)MiB"/gm,
        c.ATTACHMENT_MAX_MB,
      ],
      // The email settings' (app/lib/email/limits.ts).
      [
        'supabase/config.toml',
        /^\[storage\.buckets\.branding\]\n(?:[^[\n].*\n|\n)*?file_size_limit = "(\d+)MiB"/gm,
        email.LOGO_MAX_MB,
      ],
      ['supabase/schemas/82_email_settings.sql', /char_length\(sender_name\) <= (\d+)/g, email.SENDER_NAME_MAX_LENGTH],
      ['supabase/schemas/82_email_settings.sql', /char_length\(footer\) <= (\d+)/g, email.EMAIL_FOOTER_MAX_LENGTH],
      ['supabase/schemas/86_signatures.sql', /char_length\(body\) <= (\d+)/g, email.SIGNATURE_MAX_LENGTH],
      [
        'supabase/schemas/80_email.sql',
        /expires_at timestamptz not null default now\(\) \+ interval '(\d+) hours'/g,
        c.EMAIL_LINK_VALID_HOURS,
      ],
      [
        'supabase/schemas/10_workspaces.sql',
        /expires_at timestamptz not null default now\(\) \+ interval '(\d+) days'/g,
        c.INVITATION_LIFETIME_DAYS,
      ],
      // The help center's (app/lib/help/limits.ts).
      [
        'supabase/schemas/65_help_center.sql',
        /create table public\.help_collections \(\n(?:.*\n)*?.*char_length\(title\) between 1 and (\d+)/g,
        help.COLLECTION_TITLE_MAX_LENGTH,
      ],
      [
        'supabase/schemas/65_help_center.sql',
        /char_length\(description\) <= (\d+)/g,
        help.COLLECTION_DESCRIPTION_MAX_LENGTH,
      ],
      [
        'supabase/schemas/65_help_center.sql',
        /create table public\.help_articles \(\n(?:.*\n)*?.*char_length\(title\) between 1 and (\d+)/g,
        help.ARTICLE_TITLE_MAX_LENGTH,
      ],
      ['supabase/schemas/65_help_center.sql', /char_length\(body\) <= (\d+)/g, help.ARTICLE_BODY_MAX_LENGTH],
      // A suggestion opened and no request within this long is a deflection (help_report, record_help_suggestion).
      ['supabase/schemas/65_help_center.sql', /interval '(\d+) minutes'/g, help.DEFLECTION_MINUTES],
      // Counted counts (app/lib/helpdesk/inbox-views.ts): a search's per view while searching, and the walks'
      // default cap (a saved view's, private.inbox_newest_matches).
      ['supabase/schemas/50_inbox.sql', /count_cap constant integer := (\d+);/g, views.SEARCH_COUNT_CAP],
      ['supabase/schemas/50_inbox.sql', /p_cap integer default (\d+)[,)]/g, views.COUNT_CAP],
    ];
    for (const [file, pattern, value] of pinned) {
      const found = numbers(file, pattern);
      expect(found.length, `${file} ${pattern}`).toBeGreaterThan(0);
      expect(found, `${file} ${pattern}`).toEqual(found.map(() => value));
    }
  });

  it("a file's size and the files a message carries are said once in the database, as the app says them", () => {
    const file = 'supabase/schemas/40_attachments.sql';
    expect(numbers(file, /private\.attachments_per_message\(\) returns integer\n.*\$\$ select (\d+) \$\$/g)).toEqual([
      constants.ATTACHMENTS_PER_MESSAGE,
    ]);
    expect(
      numbers(file, /private\.attachment_max_bytes\(\) returns bigint\n.*\$\$ select (\d+) \* 1024 \* 1024/g),
    ).toEqual([constants.ATTACHMENT_MAX_MB]);
    // Every other place asks those two functions: no count or size written out again.
    expect(read(file)).not.toMatch(/jsonb_array_length\([^)]*\) > \d/);
    expect(read(file).match(/1024 \* 1024/g)).toHaveLength(1);
  });
});

describe('open statuses', () => {
  it('are listed once, in private.is_open and private.is_backlog; every view and function asks them', () => {
    const lists: string[] = [];
    for (const { file, sql } of SCHEMAS) {
      // A list of statuses with the first two: `in ('new', 'open'…)`, `array['new', 'open'…]`, or quoted
      // inside dynamic SQL (`in (''new'', ''open''…)`).
      for (const m of sql.matchAll(/(?:\bin\s*\(|array\[)\s*('+)new\1,\s*\1open\1/gi)) {
        const statement = sql.slice(sql.lastIndexOf(';', m.index) + 1, m.index);
        if (/create function private\.is_open\(/.test(statement)) continue;
        lists.push(`${file}: …${sql.slice(m.index - 40, m.index + 30).replace(/\s+/g, ' ')}…`);
      }
    }
    expect(lists).toEqual([]);
    const asked = SCHEMAS.flatMap(({ sql }) => [...sql.matchAll(/private\.is_(open|backlog)\(/g)]).length;
    expect(asked).toBeGreaterThan(10);
  });
});

describe('refusals the database raises', () => {
  // 00_private.sql: `raise exception using errcode = 'P0001', message = '<catalogue code>', detail = …`.
  const raises = SCHEMAS.flatMap(({ file, sql }) =>
    [...sql.replace(/--.*$/gm, '').matchAll(/raise\s+exception\b[^;]*;/gi)].map((m) => ({ file, raise: m[0] })),
  );

  it("are written as 00_private.sql says, so this test can read every one's code", () => {
    expect(raises.length).toBeGreaterThan(40);
    const other = raises.filter((r) => !/^raise exception using errcode = 'P0001', message = '[a-z_]+'/.test(r.raise));
    expect(other).toEqual([]);
  });

  it('are codes of the error catalogue', () => {
    const codes = raises.map((r) => /message = '([a-z_]+)'/.exec(r.raise)?.[1]);
    expect(codes.filter((code) => !isErrorCode(code))).toEqual([]);
  });

  it('and every code of the catalogue is raised or used somewhere', () => {
    // The codes the browser shows (catalogue.ts) and those only the server gives (catalogue.server.ts).
    const catalogue = read('app/lib/errors/catalogue.ts') + read('app/lib/errors/catalogue.server.ts');
    const codes = [...catalogue.matchAll(/^ {2}([a-z_]+): \{/gm)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(25);
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(rel);
        else if (/\.(tsx?|sql)$/.test(entry.name) && !rel.startsWith('app/lib/errors/catalogue.'))
          sources.push(read(rel));
      }
    };
    for (const dir of ['app', 'supabase/schemas', 'supabase/functions']) walk(dir);
    sources.push(read('server.ts'));
    const code = sources.join('\n');
    expect(codes.filter((c) => !new RegExp(`['"\`]${c}['"\`]`).test(code))).toEqual([]);
  });
});

/** Every TypeScript source of the app, the scripts, the tests and the functions, by path. */
function sources(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (/\.(tsx?|mjs)$/.test(entry.name) && !rel.endsWith('database.types.ts')) out.set(rel, read(rel));
    }
  };
  for (const dir of ['app', 'scripts', 'tests', 'supabase/functions']) walk(dir);
  out.set('server.ts', read('server.ts'));
  return out;
}

describe('the admin check', () => {
  it('is requireAdmin alone: no page defines its own or answers forbidden after reading a role', () => {
    const defined: string[] = [];
    const inline: string[] = [];
    for (const [file, code] of sources()) {
      if (!file.startsWith('app/')) continue;
      for (const m of code.matchAll(/function (requireAdmin\w*)\(/g)) defined.push(`${file}: ${m[1]}`);
      if (/function requireAdmin\(/.test(code)) continue;
      for (const m of code.matchAll(/role\s*[!=]==\s*'admin'\)?\s*throw[^;]*'forbidden'/g))
        inline.push(`${file}: ${m[0]}`);
    }
    expect(defined).toHaveLength(1);
    expect(inline).toEqual([]);
  });
});

describe('dead code', () => {
  it('every value app/lib and app/components export is used', () => {
    const all = sources();
    const unused: string[] = [];
    for (const [file, code] of all) {
      if (!/^app\/(lib|components)\//.test(file)) continue;
      for (const m of code.matchAll(/^export (?:async )?(?:const|let|function|class) (\w+)/gm)) {
        const name = new RegExp(`\\b${m[1]}\\b`, 'g');
        const elsewhere = [...all].some(([other, text]) => other !== file && name.test(text));
        if (!elsewhere && (code.match(name) ?? []).length < 2) unused.push(`${file}: ${m[1]}`);
      }
    }
    expect(unused).toEqual([]);
  });
});
