// Whether the mail provider authenticated the domain of an inbound email's From
// (docs/decisions/034-inbound-email-trust.md). Anyone can write any From; a team member's identity is
// taken from it only when one of these, as the provider wrote them into Postmark's `Headers`, passes
// for From's domain (or a parent or subdomain of it, as DMARC's relaxed alignment):
//
// - the topmost `Received-SPF` (RFC 7208 §9.1), which Postmark's own server adds above everything the
//   sender wrote: `Pass … identity=mailfrom; …; envelope-from=<address>`, the envelope sender's domain
//   aligned with From's;
// - the topmost `Authentication-Results` (RFC 8601) of a server we trust (its authserv-id in
//   INBOUND_AUTHSERV_ID; §5: fields from any other are ignored, a sender can write them): `dmarc=pass`
//   with `header.from`, or `dkim=pass` with `header.d` (or `header.i`), or `spf=pass` with
//   `smtp.mailfrom`, aligned with From's domain.
//
// Plain TypeScript: the unit tests run it.

export interface MailHeader {
  Name: string;
  Value: string;
}

const domainOf = (address: string) => /@([^@\s>]+)>?$/.exec(address.trim())?.[1]?.toLowerCase() ?? null;

/** Same domain, or one a subdomain of the other (never a bare top-level name). */
function aligned(domain: string | null | undefined, fromDomain: string): boolean {
  const d = domain?.toLowerCase().replace(/\.$/, '');
  if (!d?.includes('.')) return false;
  return d === fromDomain || fromDomain.endsWith(`.${d}`) || d.endsWith(`.${fromDomain}`);
}

/** Comments in parentheses out (RFC 5322 CFWS; one level of nesting is all mail servers write). */
const withoutComments = (value: string) => value.replace(/\((?:[^()]|\([^()]*\))*\)/g, ' ');

function spfPasses(value: string, fromDomain: string): boolean {
  const text = withoutComments(value).trim();
  if (!/^pass\b/i.test(text)) return false;
  const pairs = new Map(
    [...text.matchAll(/([a-z-]+)\s*=\s*("[^"]*"|[^;\s]+)/gi)].map((m) => [m[1].toLowerCase(), m[2].replace(/"/g, '')]),
  );
  const envelope = pairs.get('envelope-from');
  return pairs.get('identity')?.toLowerCase() === 'mailfrom' && !!envelope && aligned(domainOf(envelope), fromDomain);
}

/** The authserv-id and each `method=result` with its properties, of one Authentication-Results value. */
function authResults(value: string): {
  authservId: string;
  results: { method: string; result: string; props: Map<string, string> }[];
} {
  const [id = '', ...rest] = withoutComments(value).split(';');
  const results = rest.map((part) => {
    const m = /^\s*([a-z0-9-]+)\s*=\s*([a-z]+)/i.exec(part);
    const props = new Map(
      [...part.matchAll(/([a-z]+\.[a-z0-9-]+)\s*=\s*("[^"]*"|[^;\s]+)/gi)].map((p) => [
        p[1].toLowerCase(),
        p[2].replace(/"/g, ''),
      ]),
    );
    return { method: m?.[1].toLowerCase() ?? '', result: m?.[2].toLowerCase() ?? '', props };
  });
  return { authservId: id.trim().split(/\s+/)[0]?.toLowerCase() ?? '', results };
}

function resultsPass(value: string, fromDomain: string): boolean {
  return authResults(value).results.some(({ method, result, props }) => {
    if (result !== 'pass') return false;
    if (method === 'dmarc') return aligned(props.get('header.from'), fromDomain);
    if (method === 'dkim') return aligned(props.get('header.d') ?? domainOf(props.get('header.i') ?? ''), fromDomain);
    if (method === 'spf') {
      const mailfrom = props.get('smtp.mailfrom') ?? '';
      return aligned(mailfrom.includes('@') ? domainOf(mailfrom) : mailfrom, fromDomain);
    }
    return false;
  });
}

/** True when the provider's results authenticate `from`'s domain (see above). */
export function senderVerified(headers: MailHeader[] | undefined, from: string, trustedAuthservIds: string[]): boolean {
  const fromDomain = domainOf(from);
  if (!fromDomain) return false;
  const named = (name: string) => (headers ?? []).filter((h) => h.Name?.toLowerCase() === name);
  const [spf] = named('received-spf');
  if (spf && spfPasses(spf.Value ?? '', fromDomain)) return true;
  const trusted = new Set(trustedAuthservIds.map((id) => id.toLowerCase()).filter(Boolean));
  const ours = named('authentication-results').find((h) => trusted.has(authResults(h.Value ?? '').authservId));
  return !!ours && resultsPass(ours.Value ?? '', fromDomain);
}
