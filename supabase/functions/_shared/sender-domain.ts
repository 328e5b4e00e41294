// Whether a workspace may send from its own domain (docs/decisions/046-sender-and-branding.md): the
// DNS records it must publish, and the check of what DNS answered. Plain TypeScript: the app shows the
// records, the verify-sender-domain function checks them, the unit tests run both.

/** The domain of an address, lower-cased ('' when there is none). */
export const domainOf = (address: string | null | undefined) => (address ?? '').split('@')[1]?.toLowerCase() ?? '';

/** Where the workspace's token goes: TXT "tend-verification=<token>" at _tend.<domain>. */
export const ownershipName = (domain: string) => `_tend.${domain}`;
export const ownershipValue = (token: string) => `tend-verification=${token}`;
export const dkimName = (domain: string, selector: string) => `${selector}._domainkey.${domain}`;

export interface DnsRecord {
  type: 'TXT' | 'TXT or CNAME';
  name: string;
  value: string;
  why: string;
}

/** The records to add for `domain`, in the order a person adds them. */
export function senderRecords(
  domain: string,
  token: string,
  selector: string | null,
  spfInclude?: string,
): DnsRecord[] {
  return [
    {
      type: 'TXT',
      name: ownershipName(domain),
      value: ownershipValue(token),
      why: 'shows the domain is this workspace’s',
    },
    {
      type: 'TXT',
      name: domain,
      value: `v=spf1 include:${spfInclude || '<your email provider’s SPF domain>'} ~all`,
      why: 'lets your email provider send for the domain (SPF); add the include to an SPF record you already have',
    },
    {
      type: 'TXT or CNAME',
      name: dkimName(domain, selector || '<selector>'),
      value: 'the DKIM key your email provider gives you',
      why: 'signs the emails (DKIM)',
    },
  ];
}

/** What DNS answered: TXT records as strings (their parts joined), CNAME targets. */
export interface DnsAnswers {
  ownership: string[];
  spf: string[];
  dkimTxt: string[];
  dkimCname: string[];
}

export interface DomainCheck {
  ownership: boolean;
  spf: boolean;
  dkim: boolean;
}

export function checkSenderDomain(a: DnsAnswers, token: string, spfInclude?: string): DomainCheck {
  const spf = a.spf.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  return {
    ownership: a.ownership.some((r) => r.trim() === ownershipValue(token)),
    // One SPF record (two is an error, RFC 7208 §4.5) that lets the provider send.
    spf:
      spf.length === 1 &&
      (!spfInclude || new RegExp(`(^|\\s)\\+?include:${spfInclude.replace(/[.]/g, '\\.')}(\\s|$)`, 'i').test(spf[0])),
    dkim: a.dkimCname.length > 0 || a.dkimTxt.some((r) => /(^|;)\s*p=[A-Za-z0-9+/=]{16,}/.test(r)),
  };
}
