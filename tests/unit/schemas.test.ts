import { describe, expect, it } from 'vitest';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import { normalizeCode } from '~/lib/forms/fields.ts';
import {
  AccountSchema,
  ConfirmSchema,
  EmailSchema,
  LoginSchema,
  VerifySchema,
  parseSubmission,
} from '~/lib/forms/schemas.server.ts';

function form(entries: Record<string, string>) {
  const data = new FormData();
  for (const [k, v] of Object.entries(entries)) data.set(k, v);
  return data;
}

describe('email', () => {
  it('is trimmed and lower-cased', () => {
    expect(EmailSchema.parse('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('refuses what is not an address, with the catalogue message', () => {
    for (const bad of ['ada', 'ada@', '@example.com', 'ada@example', 'a b@example.com']) {
      const r = EmailSchema.safeParse(bad);
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0].message).toBe(errorMessage('email_invalid'));
    }
  });

  it('refuses more than 254 characters', () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`;
    expect(long.length).toBeGreaterThan(254);
    expect(EmailSchema.safeParse(long).success).toBe(false);
  });

  it('re-renders the login form with the input kept and the message at the field', () => {
    const submission = parseSubmission(form({ email: 'not-an-address', redirectTo: '/account' }), LoginSchema);
    expect(submission.status).toBe('error');
    const reply = submission.reply();
    expect(reply.error).toEqual({ email: [errorMessage('email_invalid')] });
    expect(reply.initialValue).toMatchObject({ email: 'not-an-address', redirectTo: '/account' });
  });

  it('asks for an address when the field is empty', () => {
    const submission = parseSubmission(form({ email: '' }), LoginSchema);
    expect(submission.reply().error).toEqual({ email: [errorMessage('email_invalid')] });
  });
});

describe('one-time code', () => {
  it('drops anything that is not a digit, so a pasted "123 456" is "123456"', () => {
    expect(normalizeCode('123 456')).toBe('123456');
    expect(normalizeCode(' 12-34\t56\n')).toBe('123456');
    const submission = parseSubmission(form({ intent: 'verify', code: '123 456' }), VerifySchema);
    expect(submission.status).toBe('success');
    expect(submission.status === 'success' && submission.value.code).toBe('123456');
  });

  it.each(['12345', '1234567', 'abcdef', ''])('refuses %j with code_invalid', (code) => {
    const submission = parseSubmission(form({ intent: 'verify', code }), VerifySchema);
    expect(submission.status).toBe('error');
    expect(submission.reply().error?.code).toEqual([errorMessage('code_invalid')]);
  });
});

describe('display name', () => {
  it('is trimmed and must be 1 to 60 characters', () => {
    expect(AccountSchema.parse({ displayName: '  Ada Lovelace ' })).toEqual({ displayName: 'Ada Lovelace' });
    expect(AccountSchema.safeParse({ displayName: '   ' }).success).toBe(false);
    expect(AccountSchema.safeParse({ displayName: 'x'.repeat(61) }).success).toBe(false);
    expect(AccountSchema.safeParse({ displayName: 'x'.repeat(60) }).success).toBe(true);
  });

  it('says so with the catalogue message', () => {
    const reply = parseSubmission(form({ displayName: '' }), AccountSchema).reply();
    expect(reply.error).toEqual({ displayName: [errorMessage('display_name_invalid')] });
  });
});

describe('confirm link', () => {
  it('accepts the link types Supabase sends', () => {
    expect(ConfirmSchema.safeParse({ token_hash: 'pkce_abc', type: 'email' }).success).toBe(true);
    expect(ConfirmSchema.safeParse({ token_hash: 'abc', type: 'magiclink', next: '/account' }).success).toBe(true);
  });

  it('refuses a missing hash or an unknown type', () => {
    expect(ConfirmSchema.safeParse({ type: 'email' }).success).toBe(false);
    expect(ConfirmSchema.safeParse({ token_hash: 'abc', type: 'sms' }).success).toBe(false);
  });

  it('refuses a hash with characters no token hash has (a NUL would reach the Auth server)', () => {
    for (const token_hash of ['', 'abc\u0000', 'a b', 'abc/../x', 'é'.repeat(3), 'a'.repeat(513)]) {
      expect(ConfirmSchema.safeParse({ token_hash, type: 'email' }).success, JSON.stringify(token_hash)).toBe(false);
    }
    expect(ConfirmSchema.safeParse({ token_hash: 'f'.repeat(56), type: 'email' }).success).toBe(true);
  });
});
