// Whether a sender domain is ready (supabase/functions/_shared/sender-domain.ts;
// docs/decisions/046-sender-and-branding.md): the records to publish and the check of what DNS answered.
import { describe, expect, it } from 'vitest';
import { checkSenderDomain, domainOf, senderRecords } from '../../supabase/functions/_shared/sender-domain.ts';

const TOKEN = '0123456789abcdef0123456789abcdef';
const all = {
  ownership: [`tend-verification=${TOKEN}`],
  spf: ['v=spf1 include:spf.provider.example ~all', 'google-site-verification=abc'],
  dkimTxt: ['v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC'],
  dkimCname: [] as string[],
};

describe('sender domain', () => {
  it('lists the ownership, SPF and DKIM records for the domain', () => {
    const records = senderRecords('acme.example', TOKEN, 'tend1', 'spf.provider.example');
    expect(records.map((r) => [r.type, r.name, r.value])).toEqual([
      ['TXT', '_tend.acme.example', `tend-verification=${TOKEN}`],
      ['TXT', 'acme.example', 'v=spf1 include:spf.provider.example ~all'],
      ['TXT or CNAME', 'tend1._domainkey.acme.example', 'the DKIM key your email provider gives you'],
    ]);
    expect(domainOf('Help@ACME.example')).toBe('acme.example');
    expect(domainOf(null)).toBe('');
  });

  it('passes only with this workspace’s token, one SPF record with the provider, and a DKIM key or CNAME', () => {
    const check = (a: Partial<typeof all>) => checkSenderDomain({ ...all, ...a }, TOKEN, 'spf.provider.example');
    expect(check({})).toEqual({ ownership: true, spf: true, dkim: true });
    expect(check({ ownership: ['tend-verification=another-workspaces-token'] }).ownership).toBe(false);
    expect(check({ spf: ['v=spf1 include:other.example ~all'] }).spf).toBe(false);
    // Two SPF records are an error for receivers (RFC 7208 §4.5).
    expect(check({ spf: ['v=spf1 include:spf.provider.example ~all', 'v=spf1 -all'] }).spf).toBe(false);
    expect(check({ spf: ['v=spf1 include:spf.provider.example.evil ~all'] }).spf).toBe(false);
    expect(check({ dkimTxt: ['v=DKIM1; p='] }).dkim).toBe(false);
    expect(check({ dkimTxt: [], dkimCname: ['tend1.dkim.provider.example'] }).dkim).toBe(true);
  });
});
