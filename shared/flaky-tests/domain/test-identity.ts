// Test identity exactly as the hosted product derives it (flaky-tests notes §1.1, §1.2), so a
// test uploaded through the unmodified hosted CLI gets the same UUID here as there, and ids the CLI
// sends to getQuarantineConfig match the ids we store.
import { hash } from 'node:crypto';

/** RFC 4122 URL namespace; the hosted CLI hashes every identity tuple in it. */
export const IDENTITY_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** Literal appended to every base tuple ("compatibility with legacy code" upstream). */
const TESTCASE_KIND = 'JUNIT_TESTCASE';

/** Variants longer than this are cut by the CLI before they reach the id (§1.2). */
export const MAX_VARIANT_LENGTH = 64;

export interface RepoParts {
  host: string;
  owner: string;
  name: string;
}

export interface TestIdentityInput {
  orgUrlSlug: string;
  /** `host/owner/name`, see repoFullName(). */
  repoFullName: string;
  /** Missing values are empty strings in the tuple, so null ≡ undefined ≡ "". */
  file?: string | null;
  classname?: string | null;
  /** Name of the outermost enclosing `<testsuite>`. */
  parent?: string | null;
  name?: string | null;
  /** Optional `testcase@id` attribute (XCResult converter, RSpec plugin `trunk:` ids). */
  infoId?: string | null;
  /** Upload variant; normalised with normalizeVariant(). */
  variant?: string | null;
}

const NAMESPACE_BYTES = Buffer.from(IDENTITY_NAMESPACE.replaceAll('-', ''), 'hex');

/** The namespace followed by the name being hashed; grown when a name might not fit. */
let hashInput = Buffer.alloc(4096);
NAMESPACE_BYTES.copy(hashInput);

/**
 * UUIDv5 (URL namespace) of the values joined with `#`: the hosted CLI's only hash. RFC 9562's
 * steps written out over one SHA-1 of the namespace and the UTF-8 name, because every run of an
 * upload is hashed and the `uuid` package's v5 (which the unit tests compare against) spends
 * three times as long turning the name into bytes as hashing it. One-shot `hash` over a reused
 * buffer: a Hash object per run cost more than the hashing.
 */
export function identityChecksum(values: readonly string[]): string {
  const name = values.join('#');
  // A UTF-16 code unit takes at most three bytes in UTF-8.
  const room = NAMESPACE_BYTES.length + 3 * name.length;
  if (room > hashInput.length) {
    hashInput = Buffer.alloc(room);
    NAMESPACE_BYTES.copy(hashInput);
  }
  const length = NAMESPACE_BYTES.length + hashInput.write(name, NAMESPACE_BYTES.length, 'utf8');
  const digest = hash('sha1', hashInput.subarray(0, length), 'buffer');
  digest[6] = ((digest[6] as number) & 0x0f) | 0x50; // version 5
  digest[8] = ((digest[8] as number) & 0x3f) | 0x80; // RFC variant
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** `"{host}/{owner}/{name}"` — no lower-casing, exactly like the CLI. */
export function repoFullName(repo: RepoParts): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}

/**
 * Splits a git remote URL into host/owner/name the way the CLI does: `ssh://`, `https://`,
 * `git@host:owner/name`; parts trimmed, trailing `/` and `.git` dropped from the name; owner may
 * hold slashes (GitLab subgroups). Returns null when the URL has no owner/name.
 */
export function parseRepoUrl(url: string): RepoParts | null {
  let rest = url.trim();
  let host: string;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest);
  if (scheme) {
    rest = rest.slice(scheme[0].length);
    const slash = rest.indexOf('/');
    if (slash < 0) return null;
    host = rest.slice(0, slash);
    rest = rest.slice(slash + 1);
  } else {
    // scp-like syntax: [user@]host:owner/name
    const colon = rest.indexOf(':');
    if (colon < 0) return null;
    host = rest.slice(0, colon);
    rest = rest.slice(colon + 1);
  }
  host = host.slice(host.lastIndexOf('@') + 1); // drop credentials / ssh user
  host = host.replace(/:\d+$/, ''); // the port is not part of the repository's name
  rest = rest.replace(/^\/+/, '').replace(/\/+$/, '');
  if (rest.endsWith('.git')) rest = rest.slice(0, -4);
  rest = rest.replace(/\/+$/, '');
  const lastSlash = rest.lastIndexOf('/');
  if (lastSlash <= 0) return null;
  const parts = { host: host.trim(), owner: rest.slice(0, lastSlash).trim(), name: rest.slice(lastSlash + 1).trim() };
  if (!parts.host || !parts.owner || !parts.name) return null;
  return parts;
}

/** Variant as it takes part in the id: `""` when absent, cut to 64 characters (code points). */
export function normalizeVariant(variant: string | null | undefined): string {
  if (!variant) return '';
  const chars = Array.from(variant);
  return chars.length > MAX_VARIANT_LENGTH ? chars.slice(0, MAX_VARIANT_LENGTH).join('') : variant;
}

/**
 * Version number of a UUID in any form the CLI's UUID parser accepts (hyphenated, 32 hex digits,
 * `{braced}`, `urn:uuid:`), or null when the string is not a UUID.
 */
export function uuidVersion(value: string): number | null {
  let s = value;
  if (/^urn:uuid:/i.test(s)) s = s.slice(9);
  else if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  let hex: string;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) hex = s.replace(/-/g, '');
  else if (/^[0-9a-f]{32}$/i.test(s)) hex = s;
  else return null;
  return parseInt(hex.charAt(12), 16);
}

/**
 * One application of the CLI's id function (`gen_info_id`): the base tuple, or the `id`
 * attribute rules when one is present. A variant is appended to the tuple when non-empty.
 */
export function singleHashTestId(input: TestIdentityInput): string {
  const variant = normalizeVariant(input.variant);
  const infoId = input.infoId ?? '';
  const base = [input.orgUrlSlug, input.repoFullName, input.file ?? '', input.classname ?? '', input.parent ?? '', input.name ?? '', TESTCASE_KIND];
  if (variant) base.push(variant);
  if (infoId) {
    if (infoId.startsWith('trunk:')) {
      const alt = [input.orgUrlSlug, input.repoFullName, infoId];
      if (variant) alt.push(variant);
      return identityChecksum(alt);
    }
    if (uuidVersion(infoId) === 5) {
      // An id that is already a v5 UUID is the identity; a variant still splits it.
      return variant ? identityChecksum([infoId, variant]) : infoId;
    }
    // Any other id (e.g. a v4 UUID) is ignored and the tuple decides.
  }
  return identityChecksum(base);
}

/**
 * The test's id (`generate_info_id_variant_wrapper`, used for the ids the CLI reports to the
 * quarantine API and in meta.json): without a variant, or with an `id` attribute, one application;
 * with a variant and no `id`, the base-with-variant id is hashed again with the variant, so a
 * variant id is the UUIDv5 of `"<uuid>#<variant>"`.
 */
export function testId(input: TestIdentityInput): string {
  const variant = normalizeVariant(input.variant);
  const infoId = input.infoId ? input.infoId : null;
  const first = singleHashTestId({ ...input, infoId, variant });
  if (!variant || infoId !== null) return first;
  return singleHashTestId({ ...input, infoId: first, variant });
}
