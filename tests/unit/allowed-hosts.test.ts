import { describe, expect, it } from 'vitest';
import { allowedHosts, hostName, isAllowedHost } from '~/lib/http/allowed-hosts.ts';

describe('allowed Host names', () => {
  const defaults = allowedHosts({});

  it('answers loopback names and addresses by default, with or without a port', () => {
    for (const host of [
      'localhost',
      'localhost:3000',
      'LOCALHOST:3000',
      'app.localhost:3100',
      '127.0.0.1:3000',
      '[::1]:3000',
    ])
      expect(isAllowedHost(host, defaults), host).toBe(true);
  });

  it('refuses any other name, a missing Host, and Hosts that are not plain names', () => {
    for (const host of [
      'evil.example',
      'localhost.evil.example',
      'evil-localhost',
      '127.0.0.2',
      '10.0.0.1:3000',
      '',
      undefined,
      'localhost:3000@evil.example',
      'localhost/evil',
      'local host',
    ])
      expect(isAllowedHost(host, defaults), String(host)).toBe(false);
  });

  it('takes ALLOWED_HOSTS (names, .domain for it and its subdomains, * for any) and APP_ORIGIN', () => {
    const hosts = allowedHosts({ ALLOWED_HOSTS: 'tend.example, .tend.test', APP_ORIGIN: 'https://help.acme.example' });
    for (const host of ['tend.example', 'tend.example:443', 'tend.test', 'eu.tend.test', 'help.acme.example'])
      expect(isAllowedHost(host, hosts), host).toBe(true);
    for (const host of ['localhost', 'nottend.test', 'tend.example.evil.example'])
      expect(isAllowedHost(host, hosts), host).toBe(false);
    expect(isAllowedHost('anything.example', allowedHosts({ ALLOWED_HOSTS: '*' }))).toBe(true);
  });

  it('reads the name out of a Host header', () => {
    expect(hostName('Example.COM:8080')).toBe('example.com');
    expect(hostName('[::1]:3000')).toBe('[::1]');
    expect(hostName('example.com.')).toBe('example.com');
    expect(hostName('a@b')).toBeNull();
  });
});
