import { describe, expect, it } from 'vitest';
import { loginPath, safeRedirect } from '~/lib/http/safe-redirect.ts';

describe('safeRedirect', () => {
  it('keeps paths on this site, with their query and hash', () => {
    expect(safeRedirect('/account')).toBe('/account');
    expect(safeRedirect('/w/acme?view=mine#top')).toBe('/w/acme?view=mine#top');
  });

  // Each of these would leave the site (or could, after one more decoding) if it were let through.
  it.each([
    ['protocol-relative', '//evil.example/x'],
    ['three slashes', '///evil.example'],
    ['backslash after the slash', '/\\evil.example'],
    ['two backslashes', '\\\\evil.example'],
    ['absolute http URL', 'https://evil.example/'],
    ['scheme without slashes', 'http:evil.example'],
    ['javascript: URL', 'javascript:alert(1)'],
    ['data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['relative without a slash', 'account'],
    ['tab that browsers strip', '/\t/evil.example'],
    ['newline', '/\n/evil.example'],
    ['CR LF before slashes', '/\r\n//evil.example'],
    ['NUL before slashes', '/\u0000/evil.example'],
    ['backslash later on', '/a\\..\\\\evil.example'],
    ['empty', ''],
    ['dot segment before slashes', '/.//evil.example/phish'],
    ['encoded dot segment', '/%2e//evil.example/x'],
    ['encoded dot-dot segment', '/%2E%2E//evil.example'],
    ['dot-dot segment before slashes', '/a/..//evil.example'],
    ['encoded slashes', '/%2F%2Fevil.example'],
    ['one encoded slash', '/%2f/evil.example'],
    ['double-encoded slashes', '/%252F%252Fevil.example'],
    ['encoded backslash', '/%5Cevil.example'],
    ['encoded tab', '/%09/evil.example'],
    ['encoded slash after a dot segment', '/./%2F/evil.example'],
    ['leading spaces before slashes', '   //evil.example'],
    ['undecodable percent sequence', '/%E0%A4%A'],
  ])('refuses the target: %s', (_label, target) => {
    expect(safeRedirect(target)).toBe('/');
  });

  it('gives back only what it would accept again, unchanged', () => {
    for (const target of ['/account', '/w/acme?q=a%2Fb#x', '/a/./b/../c', '/support/acme/requests/7']) {
      const safe = safeRedirect(target);
      expect(safeRedirect(safe)).toBe(safe);
    }
  });

  it('keeps encoded slashes in the query, where they are data', () => {
    expect(safeRedirect('/w/acme?q=%2F%2Fevil.example')).toBe('/w/acme?q=%2F%2Fevil.example');
  });

  it('falls back when the value is not a string', () => {
    expect(safeRedirect(undefined, '/home')).toBe('/home');
    expect(safeRedirect(null)).toBe('/');
    expect(safeRedirect(['/account'])).toBe('/');
  });

  it('trims surrounding spaces before judging', () => {
    expect(safeRedirect('  /account ')).toBe('/account');
  });

  it('normalises dot segments so they cannot climb out of the site', () => {
    expect(safeRedirect('/a/../b')).toBe('/b');
    expect(safeRedirect('/../../etc')).toBe('/etc');
  });
});

describe('loginPath', () => {
  it('carries the page to come back to', () => {
    expect(loginPath('/account')).toBe('/login?redirectTo=%2Faccount');
    expect(loginPath('/w/acme?view=mine')).toBe('/login?redirectTo=%2Fw%2Facme%3Fview%3Dmine');
  });

  it('drops unsafe or pointless targets', () => {
    expect(loginPath('//evil.example')).toBe('/login');
    expect(loginPath('/.//evil.example')).toBe('/login');
    expect(loginPath('/')).toBe('/login');
    expect(loginPath(undefined)).toBe('/login');
  });
});
