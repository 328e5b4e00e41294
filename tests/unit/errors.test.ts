import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorMessage, errorStatus, isErrorCode } from '~/lib/errors/catalogue.server.ts';
import { codeForStatus } from '~/lib/errors/catalogue.ts';

const APP = path.resolve(import.meta.dirname, '../../app');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return /\.(ts|tsx)$/.test(name) ? [file] : [];
  });
}

describe('error catalogue', () => {
  it('has the product messages, word for word (docs/product.md §8)', () => {
    expect(errorMessage('email_invalid')).toBe('Enter a valid email address.');
    expect(errorMessage('code_invalid')).toBe(
      'That code is wrong or has expired. Check the latest email or send a new code.',
    );
    expect(errorMessage('code_rate_limited', { seconds: 37 })).toBe('You can request a new code in 37 seconds.');
    expect(errorMessage('too_many_attempts')).toBe('Too many attempts. Try again in a few minutes.');
    expect(errorMessage('session_expired')).toBe('Your session has ended. Sign in again.');
    expect(errorMessage('not_found')).toBe("We couldn't find that.");
    expect(errorMessage('forbidden')).toBe("You don't have access to this.");
    expect(errorMessage('invalid_transition', { from: 'closed', to: 'open' })).toBe(
      "A ticket can't go from closed to open.",
    );
    expect(errorMessage('attachment_too_large', { fileName: 'file.pdf' })).toBe('"file.pdf" is larger than 10 MB.');
    expect(errorMessage('too_many_attachments')).toBe('Attach at most 5 files to one message.');
    expect(errorMessage('search_timeout')).toBe(
      'This search took too long. Narrow it with a view or a filter, or add a word.',
    );
    expect(errorMessage('backend_unavailable')).toBe(
      "Tend can't reach its database right now. Your text is kept; try again.",
    );
  });

  it('gives each code its status', () => {
    expect(errorStatus('not_found')).toBe(404);
    expect(errorStatus('forbidden')).toBe(403);
    expect(errorStatus('backend_unavailable')).toBe(503);
    expect(errorStatus('too_many_attempts')).toBe(429);
    expect(errorStatus('email_invalid')).toBe(400);
  });

  it('picks a code for a bare status on error pages', () => {
    expect(codeForStatus(404)).toBe('not_found');
    expect(codeForStatus(405)).toBe('not_found');
    expect(codeForStatus(403)).toBe('forbidden');
    expect(codeForStatus(503)).toBe('backend_unavailable');
    expect(codeForStatus(500)).toBe('unexpected');
    expect(codeForStatus(422)).toBe('bad_request');
  });

  it('recognises only its own codes', () => {
    expect(isErrorCode('not_found')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });

  it('is the only place the messages are written', () => {
    const catalogueFiles = ['catalogue.ts', 'catalogue.server.ts'].map((f) => path.join(APP, 'lib', 'errors', f));
    const phrases = [
      "We couldn't find that",
      'That code is wrong or has expired',
      'Too many attempts',
      'Enter a valid email address',
    ];
    for (const file of sources(APP).filter((f) => !catalogueFiles.includes(f))) {
      const text = readFileSync(file, 'utf8');
      for (const phrase of phrases)
        expect(text.includes(phrase), `${path.relative(APP, file)} repeats "${phrase}"`).toBe(false);
    }
  });
});

describe('actions', () => {
  it('every route with an action checks the origin first', () => {
    let checked = 0;
    for (const file of sources(path.join(APP, 'routes'))) {
      const text = readFileSync(file, 'utf8');
      const action = /export (async )?function action\([^)]*\)\s*\{([\s\S]*?)\n\}/.exec(text);
      if (!action || file.endsWith('$.tsx')) continue;
      expect(action[2].trimStart().startsWith('requireSameOrigin(request);'), path.relative(APP, file)).toBe(true);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
