// Pseudonymisation for `casdoctor snapshot --redact`: account ids, ARNs, IP addresses, host names and EC2 instance ids
// become stable pseudonyms, consistently in every string of the snapshot, so the redacted dump gives the same verdicts.
//
// Mapping scheme: pseudonym = format(HMAC-SHA256(salt, "<category>\0<original>")). The same original and salt always give
// the same pseudonym, within a run and across runs. Formats keep the shape the analysis relies on:
//   account  111122223333                       -> 12 decimal digits
//   arn      arn:aws:iam::111122223333:role/x   -> arn:aws:iam::<account>:role/redacted-<12 hex> (partition, service,
//                                                  region and resource type kept; the resource name hashed as a whole)
//   ipv4     10.0.14.37                          -> 10.<3 bytes> (0.0.0.0, 127/8, 169.254/16, 255.255.255.255 are kept)
//   ipv6     2600:1f18::5                         -> fdxx:xxxx:... (:: and ::1 are kept)
//   host     ip-10-0-14-37.ec2.internal          -> ip-<the ipv4 pseudonym, dashed>.ec2.internal (DNS suffix kept);
//            any other node name                 -> node-<10 hex>
//   instance i-0123456789abcdef0                 -> i-<as many hex digits>
//   endpoint <32 hex>.gr7.<region>.eks.amazonaws.com -> <32 hex>.gr7.<region>.eks.amazonaws.com; the EKS OIDC issuer
//            oidc.eks.<region>.amazonaws.com/id/<32 hex> takes the same pseudonym (it is the same id)
//   resource subnet-/vpc-/sg-/ami-/lt-/vol-/eni-/snap-/igw-/rtb-/nat-<hex> -> same prefix, as many hex digits
//   Tencent ins-/vpc-/subnet-/img-/sg-/disk-/eni-<8 letters and digits> -> same prefix, 8 hex digits
//   uid      object UIDs, node systemUUID / bootID / machineID -> the same shape (dashes and case kept), hex digits hashed
//   hostname a host in a URL (scheme://host) or an image's registry, not a public one -> host-<10 hex>.redacted.invalid
// When two originals of one category would share a pseudonym (likely only for IPv4, 24 bits), the one met later in the
// snapshot's order takes HMAC(salt, "<category>\0<original>\0<n>") for the first free n.
import { createHmac } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { RawInputs } from '../model/snapshot.js';

export type PseudonymCategory =
  | 'account'
  | 'arn'
  | 'ipv4'
  | 'ipv6'
  | 'host'
  | 'instance'
  | 'endpoint'
  | 'resource'
  | 'uid'
  | 'hostname';

export interface PseudonymEntry {
  category: PseudonymCategory;
  original: string;
  pseudonym: string;
}

const ARN_RE = /arn:(aws(?:-[a-z]+)*):([a-z0-9-]*):([a-z0-9-]*):(\d{12}|aws)?:([^\s"'<>,;()[\]{}]+)/g;
const ECR_HOST_RE = /(?<!\d)(\d{12})\.dkr\.ecr\./g;
const ACCOUNT_FIELD_RE = /^\d{12}$/;
const EKS_ENDPOINT_RE = /(?<![0-9A-Za-z])([0-9A-Fa-f]{32})((?:\.[a-z0-9-]+)*\.eks\.amazonaws\.com(?:\.cn)?)/g;
const HOST_IP_RE = /(?<![A-Za-z0-9])(ip|ec2)-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(?![0-9])/g;
const INSTANCE_RE = /(?<![A-Za-z0-9])i-([0-9a-f]{17}|[0-9a-f]{8})(?![A-Za-z0-9])/g;
const RESOURCE_RE =
  /(?<![A-Za-z0-9-])(?:subnet|vpc|sg|ami|lt|vol|eni|snap|igw|rtb|nat|eipalloc|lc)-(?:[0-9a-f]{17}|[0-9a-f]{8})(?![A-Za-z0-9])/g;
// Tencent Cloud ids (CVM instance, VPC, subnet, image, security group, disk, ENI): 8 lower-case letters and digits, at
// least one digit (the externalgrpc provider's providerIDs, instanceParameter); AWS's hex ids are RESOURCE_RE's
const TENCENT_ID_RE = /(?<![A-Za-z0-9-])(?:ins|vpc|subnet|img|sg|disk|eni)-(?=[a-z]*[0-9])[0-9a-z]{8}(?![A-Za-z0-9])/g;
const OIDC_RE = /(oidc\.eks\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\/id\/)([0-9A-Fa-f]{32})(?![0-9A-Za-z])/g;
const UUID_RE = /(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z-])/g;
// Node identities that are not always UUID-shaped (machineID is 32 hex digits): replaced as whole values.
const MACHINE_ID_KEYS = new Set(['machineID', 'systemUUID', 'bootID']);
// scheme://[user@]host: the host of a URL, anywhere in text
const URL_HOST_RE = /\b([a-z][a-z0-9+.-]*:\/\/(?:[^\s/@]*@)?)([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)/g;
// The registry of an image reference (only in `image` fields): a first path segment with a dot or a port.
const IMAGE_REGISTRY_RE = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)(?=[:/])/;
// Public services name nobody: kept so that a redacted dump still says where images and APIs come from.
const PUBLIC_HOST_RE =
  /(^|\.)(amazonaws\.com(\.cn)?|amazon\.com|aws|k8s\.io|kubernetes\.io|docker\.io|docker\.com|gcr\.io|ghcr\.io|quay\.io|github\.com|githubusercontent\.com|mcr\.microsoft\.com|nvcr\.io|public\.ecr\.aws|example\.(com|org|net)|redacted\.invalid|localhost)$/i;
const IPV4_RE = /(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?!\d|\.\d)/g;
const IPV6_CANDIDATE_RE = /(?<![0-9A-Za-z:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![0-9A-Za-z:])/g;
// A node name that is an EC2 private DNS name or instance-id host name is handled by HOST_IP_RE / INSTANCE_RE.
const STRUCTURED_HOST_RE = /^(?:(?:ip|ec2)-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}|i-[0-9a-f]{8,17})(?:\.|$)/;

function keptIpv4(octets: number[]): boolean {
  const [a, b] = octets;
  return (
    octets.every((o) => o === 0) ||
    a === 127 ||
    (a === 169 && b === 254) ||
    octets.every((o) => o === 255)
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Walks every string of a JSON-like value with the key it is under (object keys are left alone). */
function mapStrings(v: unknown, fn: (s: string, key: string | undefined) => string, key?: string): unknown {
  if (typeof v === 'string') return fn(v, key);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, fn, key));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = mapStrings(x, fn, k);
    return out;
  }
  return v;
}

function forEachString(v: unknown, fn: (s: string, key: string | undefined) => void, key?: string): void {
  if (typeof v === 'string') fn(v, key);
  else if (Array.isArray(v)) for (const x of v) forEachString(x, fn, key);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) forEachString(x, fn, k);
}

export class Redactor {
  private readonly forward = new Map<string, string>();
  private readonly taken = new Map<string, string>();
  private readonly accounts = new Set<string>();
  /** Node names that are neither EC2 DNS names nor instance ids: replaced as whole values, and inside text when distinctive. */
  private readonly plainHosts = new Set<string>();
  private accountRe: RegExp | undefined;
  private hostRe: RegExp | undefined;

  constructor(private readonly salt: string) {}

  /** Collects what must be replaced wherever it appears: node names and AWS account ids. */
  learn(raw: Partial<RawInputs>): void {
    const hosts = new Set<string>();
    for (const n of raw.nodes ?? []) {
      hosts.add(n.metadata?.name ?? '');
      hosts.add(n.metadata?.labels?.['kubernetes.io/hostname'] ?? '');
      const addresses = (n.status as { addresses?: Array<{ type?: string; address?: string }> } | undefined)
        ?.addresses;
      if (Array.isArray(addresses)) {
        for (const a of addresses)
          if (/Hostname|DNS/.test(a?.type ?? '') && typeof a.address === 'string') hosts.add(a.address);
      }
    }
    for (const p of raw.pods ?? []) {
      hosts.add(typeof p.spec?.nodeName === 'string' ? p.spec.nodeName : '');
      const nominated = p.status?.nominatedNodeName;
      hosts.add(typeof nominated === 'string' ? nominated : '');
    }
    for (const e of raw.events ?? []) {
      if (e.involvedObject?.kind === 'Node') hosts.add(e.involvedObject.name ?? '');
      hosts.add(e.source?.host ?? '');
    }
    for (const h of hosts) if (typeof h === 'string' && h !== '' && !STRUCTURED_HOST_RE.test(h)) this.plainHosts.add(h);

    forEachString(raw, (s, key) => {
      for (const m of s.matchAll(ARN_RE)) if (m[4] && m[4] !== 'aws') this.accounts.add(m[4]);
      for (const m of s.matchAll(ECR_HOST_RE)) this.accounts.add(m[1]);
      if (key && /^(OwnerId|AccountId|ownerId|accountId|RequesterId)$/.test(key) && ACCOUNT_FIELD_RE.test(s))
        this.accounts.add(s);
    });
    this.accountRe = this.accounts.size
      ? new RegExp(`(?<!\\d)(?:${[...this.accounts].map(escapeRegExp).join('|')})(?!\\d)`, 'g')
      : undefined;
    // Distinctive names (with a digit, dot or dash) are replaced inside text too; plain words only as whole values.
    const distinctive = [...this.plainHosts].filter((h) => /[-.0-9]/.test(h)).sort((a, b) => b.length - a.length);
    this.hostRe = distinctive.length
      ? new RegExp(`(?<![A-Za-z0-9_.-])(?:${distinctive.map(escapeRegExp).join('|')})(?![A-Za-z0-9_-])`, 'g')
      : undefined;
  }

  /** The pseudonym of one value in one category (stable for a salt; collisions resolved in order of use). */
  pseudonym(category: PseudonymCategory, original: string): string {
    const key = `${category}\0${original}`;
    const known = this.forward.get(key);
    if (known !== undefined) return known;
    for (let n = 0; ; n++) {
      const mac = createHmac('sha256', this.salt)
        .update(n === 0 ? key : `${key}\0${n}`)
        .digest();
      const candidate = format(category, original, mac, (c, o) => this.pseudonym(c, o));
      const owner = this.taken.get(`${category}\0${candidate}`);
      if (owner === undefined || owner === original) {
        this.forward.set(key, candidate);
        this.taken.set(`${category}\0${candidate}`, original);
        return candidate;
      }
    }
  }

  /** Replaces every sensitive token of one string. */
  redactString(s: string): string {
    if (this.plainHosts.has(s)) return this.pseudonym('host', s);
    let out = s.replace(ARN_RE, (whole, partition: string, service: string, region: string, account: string | undefined) => {
      if (account === 'aws') return whole; // AWS-managed policies: nothing of the user's
      return this.pseudonym('arn', whole.replace(/[.]+$/, '')) + (whole.match(/[.]+$/)?.[0] ?? '');
    });
    out = out.replace(EKS_ENDPOINT_RE, (_w, id: string, suffix: string) => this.pseudonym('endpoint', id) + suffix);
    out = out.replace(OIDC_RE, (_w, head: string, id: string) => head + this.pseudonym('endpoint', id.toUpperCase()));
    out = out.replace(URL_HOST_RE, (whole, head: string, host: string) =>
      PUBLIC_HOST_RE.test(host) || /^[\d.]+$/.test(host) || this.plainHosts.has(host)
        ? whole
        : head + this.pseudonym('hostname', host.toLowerCase()),
    );
    out = out.replace(RESOURCE_RE, (whole) => this.pseudonym('resource', whole));
    out = out.replace(TENCENT_ID_RE, (whole) => this.pseudonym('resource', whole));
    out = out.replace(UUID_RE, (whole) => this.pseudonym('uid', whole));
    out = out.replace(HOST_IP_RE, (whole, prefix: string, a: string, b: string, c: string, d: string) => {
      const octets = [a, b, c, d].map(Number);
      if (octets.some((o) => o > 255)) return whole;
      return `${prefix}-${this.pseudonym('ipv4', octets.join('.')).replaceAll('.', '-')}`;
    });
    out = out.replace(INSTANCE_RE, (whole) => this.pseudonym('instance', whole));
    if (this.hostRe) out = out.replace(this.hostRe, (h) => this.pseudonym('host', h));
    if (this.accountRe) out = out.replace(this.accountRe, (a) => this.pseudonym('account', a));
    out = out.replace(IPV4_RE, (whole, a: string, b: string, c: string, d: string) => {
      const octets = [a, b, c, d].map(Number);
      if (octets.some((o) => o > 255) || keptIpv4(octets)) return whole;
      return this.pseudonym('ipv4', octets.join('.'));
    });
    out = out.replace(IPV6_CANDIDATE_RE, (whole) => {
      if (!isIPv6(whole) || whole === '::' || whole === '::1') return whole;
      return this.pseudonym('ipv6', whole.toLowerCase());
    });
    return out;
  }

  /** A deep copy of a JSON-like value with every string redacted. */
  redactValue<T>(v: T): T {
    return mapStrings(v, (s, key) => {
      if (key !== undefined && MACHINE_ID_KEYS.has(key) && s !== '') return this.pseudonym('uid', s);
      if (key === 'image') {
        const registry = IMAGE_REGISTRY_RE.exec(s)?.[1];
        if (registry && !PUBLIC_HOST_RE.test(registry) && !/\.dkr\.ecr\./.test(registry))
          return this.redactString(this.pseudonym('hostname', registry.toLowerCase()) + s.slice(registry.length));
      }
      return this.redactString(s);
    }) as T;
  }

  /** Every pseudonym handed out so far, sorted: the key to read a redacted snapshot (keep it private). */
  mapping(): PseudonymEntry[] {
    return [...this.forward]
      .map(([key, pseudonym]) => {
        const i = key.indexOf('\0');
        return { category: key.slice(0, i) as PseudonymCategory, original: key.slice(i + 1), pseudonym };
      })
      .sort((a, b) =>
        a.category === b.category
          ? a.original < b.original
            ? -1
            : a.original > b.original
              ? 1
              : 0
          : a.category < b.category
            ? -1
            : 1,
      );
  }
}

function format(
  category: PseudonymCategory,
  original: string,
  mac: Buffer,
  nested: (c: PseudonymCategory, o: string) => string,
): string {
  const hex = mac.toString('hex');
  switch (category) {
    case 'account':
      return (BigInt(`0x${hex.slice(0, 16)}`) % 10n ** 12n).toString().padStart(12, '0');
    case 'ipv4':
      return `10.${mac[0]}.${mac[1]}.${mac[2]}`;
    case 'ipv6':
      return `fd${hex.slice(0, 2)}:${(hex.slice(2, 30).match(/.{4}/g) ?? []).join(':')}`;
    case 'instance':
      return `i-${hex.slice(0, original.length - 2)}`;
    case 'host':
      return `node-${hex.slice(0, 10)}`;
    case 'endpoint':
      return hex.slice(0, 32).toUpperCase();
    case 'resource': {
      const dash = original.indexOf('-');
      return `${original.slice(0, dash)}-${hex.slice(0, original.length - dash - 1)}`;
    }
    case 'uid': {
      // each hex digit from the MAC, in the original's case; dashes and length kept
      const upper = /[A-F]/.test(original) && !/[a-f]/.test(original);
      let i = 0;
      const out = original.replace(/[0-9a-fA-F]/g, () => hex[i++ % hex.length]);
      return upper ? out.toUpperCase() : out;
    }
    case 'hostname':
      return `host-${hex.slice(0, 10)}.redacted.invalid`;
    case 'arn': {
      const m = /^arn:([^:]*):([^:]*):([^:]*):([^:]*):(.*)$/.exec(original);
      if (!m) return `arn:aws:redacted:::redacted-${hex.slice(0, 12)}`;
      const [, partition, service, region, account, resource] = m;
      const type = /^([A-Za-z0-9-]+)[/:]/.exec(resource)?.[1];
      const acct = account ? nested('account', account) : '';
      return `arn:${partition}:${service}:${region}:${acct}:${type ? `${type}${resource[type.length]}` : ''}redacted-${hex.slice(0, 12)}`;
    }
  }
}
