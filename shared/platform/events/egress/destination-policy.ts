// Where outbound webhooks may go. A receiver is reached by name or address; either way the address
// actually dialled must be a public unicast address (not loopback, link-local, private, CGNAT,
// unique-local, unspecified, multicast, broadcast, reserved, nor an IPv6 form that embeds an IPv4
// one: mapped, NAT64, 6to4, Teredo), unless the operator allowed it by host name or by range
// (WEBHOOK_ALLOWED_DESTINATIONS). The same rule is applied when an endpoint is registered (every
// address its name resolves to) and when a delivery connects (the address dialled, after DNS: a
// name that resolves differently by then is caught there).
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Why a destination is refused: shown to the admin who registered it and in delivery errors. */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver; tests pass their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface AllowedDestinations {
  /** Host names (lower case, no trailing dot) whose addresses are not checked. */
  hosts: readonly string[];
  /** Address ranges that may be dialled although they are not public. */
  ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const NOTHING_ALLOWED: AllowedDestinations = { hosts: [], ranges: [] };

/** Parses WEBHOOK_ALLOWED_DESTINATIONS: comma-separated host names and CIDR ranges; throws naming a bad item. */
export function parseAllowedDestinations(text: string): AllowedDestinations {
  const hosts: string[] = [];
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (raw.includes('/')) {
      try {
        ranges.push(ipaddr.parseCIDR(raw));
      } catch {
        throw new Error(`"${raw}" is not a CIDR range (e.g. 10.0.0.0/8 or fd00::/8)`);
      }
    } else if (ipaddr.isValid(raw)) {
      const address = ipaddr.parse(raw);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(raw)) {
      hosts.push(normalizeHost(raw));
    } else {
      throw new Error(`"${raw}" is neither a host name, an address nor a CIDR range`);
    }
  }
  return { hosts, ranges };
}

const normalizeHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** A URL's host without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** ipaddr.js's range names, as an operator reads them. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  rfc6052: 'NAT64 (IPv4-embedding)',
  rfc6145: 'IPv4-translated',
  '6to4': '6to4 (IPv4-embedding)',
  teredo: 'Teredo (IPv4-embedding)',
};

/** A non-public address in words ("a loopback address 127.0.0.1"), or null for a public unicast one. */
export function nonPublicKind(address: string): string | null {
  // ipaddr.process turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? null : `a ${RANGE_WORDS[range] ?? range} address (${parsed.toString()})`;
}

export class DestinationPolicy {
  constructor(
    private readonly allowed: AllowedDestinations = NOTHING_ALLOWED,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  private allowedAddress(address: string): boolean {
    const parsed = ipaddr.process(address);
    if (nonPublicKind(address) === null) return true;
    return this.allowed.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }

  private allowedHost(host: string): boolean {
    return this.allowed.hosts.includes(normalizeHost(host));
  }

  /** Refuses a URL that is not http(s), carries credentials, or names a destination that is not allowed. */
  parse(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new DestinationRefused('the URL is not valid');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefused('only http and https URLs can receive webhooks');
    // A password in the URL would be stored in plain view, sent in every delivery and quoted in errors.
    if (url.username || url.password)
      throw new DestinationRefused('the URL must not carry a user name or password; put a secret in the path or use the signature');
    return url;
  }

  /** At registration: the URL, and every address its host resolves to, must be allowed. */
  async check(text: string): Promise<void> {
    const url = this.parse(text);
    const host = bareHost(url);
    if (this.allowedHost(host)) return;
    if (ipaddr.isValid(host)) {
      if (!this.allowedAddress(host)) throw this.refusal(`the URL names ${nonPublicKind(host)}`);
      return;
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolve(host);
    } catch {
      throw new DestinationRefused(`the host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw new DestinationRefused(`the host ${host} does not resolve`);
    const refused = addresses.find((a) => !this.allowedAddress(a.address));
    if (refused) throw this.refusal(`${host} resolves to ${nonPublicKind(refused.address)}`);
  }

  /**
   * At delivery, before connecting: an address literal is checked here (no lookup happens for
   * it); a host name is checked by `lookup` when the connection resolves it.
   */
  checkBeforeConnect(url: URL): void {
    const host = bareHost(url);
    if (!this.allowedHost(host) && ipaddr.isValid(host) && !this.allowedAddress(host)) throw this.refusal(`the URL names ${nonPublicKind(host)}`);
  }

  /**
   * A `lookup` for net.connect: resolves the name, keeps only allowed addresses and pins the
   * connection to them, so what is dialled is what was checked (no second resolution).
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (err: Error | null, address: string | ResolvedAddress[], family?: number) => void,
  ): void => {
    const wantAll = options.all === true;
    this.resolve(hostname).then(
      (addresses) => {
        const usable = this.allowedHost(hostname) ? addresses : addresses.filter((a) => this.allowedAddress(a.address));
        const first = usable[0];
        if (!first) {
          const seen = addresses[0];
          callback(
            seen ? this.refusal(`${hostname} resolves to ${nonPublicKind(seen.address)}`) : new DestinationRefused(`the host ${hostname} does not resolve`),
            wantAll ? [] : '',
          );
          return;
        }
        if (wantAll) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      () => callback(new DestinationRefused(`the host ${hostname} does not resolve`), wantAll ? [] : ''),
    );
  };

  private refusal(what: string): DestinationRefused {
    return new DestinationRefused(`${what}: webhooks are not sent to internal addresses unless WEBHOOK_ALLOWED_DESTINATIONS allows them`);
  }
}
