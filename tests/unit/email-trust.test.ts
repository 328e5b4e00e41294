// What inbound-email believes of a mail (docs/decisions/034-inbound-email-trust.md): the signed reply+
// and unsubscribe+ tokens, and the provider's authentication of From's domain.
import { describe, expect, it } from 'vitest';
import { senderVerified } from '../../supabase/functions/_shared/sender-auth.ts';
import { idToken, readIdToken, readReplyToken, replyToken, tokenOf } from '../../supabase/functions/_shared/tokens.ts';

const SECRET = 'a-test-secret';
const TICKET = '2f1c8a9e-4b3d-4c2a-9e1f-0a1b2c3d4e5f';
const CUSTOMER = 'c0000000-0000-4000-8000-000000000001';
const AGENT = 'a0000000-0000-4000-8000-000000000002';

describe('reply tokens', () => {
  it('gives each recipient an address of their own, 64 characters before the @, that names them alone', async () => {
    const forCustomer = await replyToken(SECRET, TICKET, CUSTOMER);
    const forAgent = await replyToken(SECRET, TICKET, AGENT);
    expect(forCustomer).not.toBe(forAgent);
    expect(`reply+${forCustomer}`).toHaveLength(64);
    expect(forCustomer).toMatch(/^2f1c8a9e4b3d4c2a9e1f0a1b2c3d4e5f\.c0000000\.[0-9a-f]{16}$/);
    const read = readReplyToken(SECRET, forCustomer)!;
    expect(read.ticketId).toBe(TICKET);
    expect(await read.isFor(CUSTOMER)).toBe(true);
    expect(await read.isFor(AGENT)).toBe(false);
  });

  it('refuses a token made with another secret, for another ticket, or with the recipient part changed', async () => {
    const token = await replyToken(SECRET, TICKET, CUSTOMER);
    expect(await readReplyToken('another-secret', token)!.isFor(CUSTOMER)).toBe(false);
    const otherTicket = `${'0'.repeat(32)}${token.slice(32)}`;
    expect(await readReplyToken(SECRET, otherTicket)!.isFor(CUSTOMER)).toBe(false);
    // Another user with the same first 8 hex: the MAC covers the whole id.
    expect(await readReplyToken(SECRET, token)!.isFor('c0000000-0000-4000-8000-000000000009')).toBe(false);
    expect(readReplyToken(SECRET, `${token}0`)).toBeNull();
  });

  it('reads the older one-per-ticket and unsubscribe tokens, and only with their MAC', async () => {
    const old = await idToken(SECRET, 'reply', TICKET);
    expect(old).toMatch(/^[0-9a-f]{32}\.[0-9a-f]{20}$/);
    expect(await readIdToken(SECRET, 'reply', old)).toBe(TICKET);
    expect(await readIdToken(SECRET, 'unsubscribe', old)).toBeNull();
    expect(await readIdToken(SECRET, 'reply', `${old.slice(0, -1)}${old.endsWith('0') ? '1' : '0'}`)).toBeNull();
    // A recipient's token is not an older token, nor the other way round.
    expect(await readIdToken(SECRET, 'reply', await replyToken(SECRET, TICKET, CUSTOMER))).toBeNull();
    expect(readReplyToken(SECRET, old)).toBeNull();
  });

  it('takes tokens only from addresses of the inbound domain, whatever the case', () => {
    expect(tokenOf('reply', 'Reply+ABC.def@Tend.Localhost', 'tend.localhost')).toBe('abc.def');
    expect(tokenOf('reply', 'reply+abc.def@evil.test', 'tend.localhost')).toBeNull();
    expect(tokenOf('reply', 'unsubscribe+abc.def@tend.localhost', 'tend.localhost')).toBeNull();
    expect(tokenOf('reply', 'reply@tend.localhost', 'tend.localhost')).toBeNull();
  });
});

describe('senderVerified', () => {
  const spf = (value: string) => ({ Name: 'Received-SPF', Value: value });
  const ar = (value: string) => ({ Name: 'Authentication-Results', Value: value });
  const postmarkSpf = (result: string, envelope: string) =>
    spf(
      `${result} (sender SPF authorized) identity=mailfrom; client-ip=192.0.2.1; helo=mx.acme.test; envelope-from=${envelope}; receiver=x@inbound.postmarkapp.com`,
    );
  const trusted = ['mx.inbound.test'];

  it.each([
    ['SPF pass for the same domain', [postmarkSpf('Pass', 'agent@acme.test')]],
    ['SPF pass for a subdomain (a bounce address)', [postmarkSpf('Pass', 'bounce+x@mail.acme.test')]],
    ['DMARC pass from the trusted server', [ar('mx.inbound.test; dmarc=pass (p=reject) header.from=acme.test')]],
    [
      'DKIM pass from the trusted server',
      [ar('mx.inbound.test 1; spf=none; dkim=pass header.d=acme.test header.s=k1')],
    ],
    ['DKIM pass by header.i', [ar('MX.Inbound.Test; dkim=pass header.i=@acme.test')]],
    ['SPF pass in the trusted results', [ar('mx.inbound.test; spf=pass smtp.mailfrom=agent@acme.test')]],
    [
      'the trusted results below another server’s',
      [ar('mx.other.test; dkim=fail header.d=acme.test'), ar('mx.inbound.test; dkim=pass header.d=acme.test')],
    ],
  ])('believes %s', (_, headers) => {
    expect(senderVerified(headers, 'Agent <agent@acme.test>', trusted)).toBe(true);
  });

  it.each([
    ['no headers', []],
    ['SPF fail', [postmarkSpf('Fail', 'agent@acme.test')]],
    ['SPF softfail', [postmarkSpf('SoftFail', 'agent@acme.test')]],
    ['SPF pass for another domain', [postmarkSpf('Pass', 'me@example.test')]],
    ['SPF pass for a look-alike domain', [postmarkSpf('Pass', 'me@evilacme.test')]],
    ['SPF pass for the bare top-level domain', [postmarkSpf('Pass', 'x@test')]],
    ['an SPF pass of the HELO name only', [spf('Pass identity=helo; helo=acme.test')]],
    [
      'a forged pass below the provider’s fail',
      [postmarkSpf('Fail', 'agent@acme.test'), postmarkSpf('Pass', 'agent@acme.test')],
    ],
    ['an untrusted server’s DKIM pass', [ar('mx.evil.test; dkim=pass header.d=acme.test')]],
    ['a server named in a comment only', [ar('mx.evil.test (mx.inbound.test); dkim=pass header.d=acme.test')]],
    ['the trusted server’s DKIM fail', [ar('mx.inbound.test; dkim=fail header.d=acme.test')]],
    ['a DKIM pass for another domain', [ar('mx.inbound.test; dkim=pass header.d=example.test')]],
    [
      'a pass for the domain in a comment only',
      [ar('mx.inbound.test; dkim=pass (header.d=acme.test) header.d=x.test')],
    ],
    ['a DMARC pass for another From', [ar('mx.inbound.test; dmarc=pass header.from=example.test')]],
  ])('does not believe %s', (_, headers) => {
    expect(senderVerified(headers, 'agent@acme.test', trusted)).toBe(false);
  });

  it('believes no Authentication-Results when no server is trusted', () => {
    expect(senderVerified([ar('mx.inbound.test; dmarc=pass header.from=acme.test')], 'agent@acme.test', [''])).toBe(
      false,
    );
  });
});
