import { describe, expect, it } from 'vitest';
import { loginPath, safeRedirect } from '~/lib/http/safe-redirect.ts';

describe('safeRedirect', () => {
  it('keeps paths on this site, with their query and hash', () => {
    expect(safeRedirect('/account')).toBe('/account');
    expect(safeRedirect('/w/acme?view=mine#top')).toBe('/w/acme?view=mine#top');
  });

  it.each([
    ['protocol-relative', '//evil.example/x'],
    ['backslash after the slash', '/\\evil.example'],
    ['absolute http URL', 'https://evil.example/'],
    ['javascript: URL', 'javascript:alert(1)'],
    ['relative without a slash', 'account'],
    ['tab that browsers strip', '/\t/evil.example'],
    ['newline', '/\n/evil.example'],
    ['backslash later on', '/a\\..\\\\evil.example'],
    ['empty', ''],
  ])('refuses a %s target', (_label, target) => {
    expect(safeRedirect(target)).toBe('/');
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
    expect(loginPath('/')).toBe('/login');
    expect(loginPath(undefined)).toBe('/login');
  });
});
