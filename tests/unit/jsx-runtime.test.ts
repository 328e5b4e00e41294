// React's production JSX runtime (the server's and the browsers'), patched to keep the compiler's fresh
// props object rather than copy it (patches/react+18.3.1.patch, docs/decisions/112-…): elements must come
// out as upstream makes them. Tests run React's development build, so the production file is loaded by path.
import { createRequire } from 'node:module';
import path from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { jsx, jsxs } = require(
  path.join(path.dirname(require.resolve('react/package.json')), 'cjs/react-jsx-runtime.production.min.js'),
) as typeof import('react/jsx-runtime');

describe("React's production jsx()", () => {
  it('keeps the props given, with the key from its argument', () => {
    const props = { className: 'hd-badge', children: 'Open' };
    const element = jsx('span', props, 7);
    expect(element.key).toBe('7');
    expect(element.props).toEqual({ className: 'hd-badge', children: 'Open' });
  });

  it('takes a spread key and ref out of the props, as upstream does', () => {
    const ref = { current: null };
    const element = jsx('input', { key: 'a', ref, name: 'ticket', __self: null, __source: null });
    expect(element.key).toBe('a');
    expect((element as unknown as { ref: unknown }).ref).toBe(ref);
    expect(element.props).toEqual({ name: 'ticket' });
  });

  it("fills a component's default props", () => {
    const Chip = Object.assign((p: { colour: string; name: string }) => `${p.name}:${p.colour}`, {
      defaultProps: { colour: 'grey' },
    });
    expect(jsx(Chip, { name: 'vip' }).props).toEqual({ name: 'vip', colour: 'grey' });
    expect(jsx(Chip, { name: 'vip', colour: 'red' }).props).toEqual({ name: 'vip', colour: 'red' });
  });

  it('renders what createElement renders', () => {
    const row = (n: number) =>
      jsxs(
        'tr',
        {
          'data-testid': 'inbox-row',
          children: [
            jsx('td', { className: 'hd-cell-select', children: jsx('input', { type: 'checkbox', value: `t${n}` }) }),
            jsx('td', { children: jsx('a', { href: `/w/acme/tickets/${n}`, dir: 'auto', children: `Refund ${n}` }) }),
          ],
        },
        n,
      );
    const made = (n: number) =>
      createElement(
        'tr',
        { key: n, 'data-testid': 'inbox-row' },
        createElement(
          'td',
          { className: 'hd-cell-select' },
          createElement('input', { type: 'checkbox', value: `t${n}` }),
        ),
        createElement('td', null, createElement('a', { href: `/w/acme/tickets/${n}`, dir: 'auto' }, `Refund ${n}`)),
      );
    const table = (rows: ReturnType<typeof createElement>[]) =>
      renderToString(createElement('table', null, createElement('tbody', null, rows)));
    expect(table([1, 2, 3].map(row))).toBe(table([1, 2, 3].map(made)));
  });
});
