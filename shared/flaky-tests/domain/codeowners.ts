// CODEOWNERS → owners of a test's file (flaky-tests notes §1.8). Two dialects:
//  - GitHub: last matching line wins; a line without owners un-owns matching paths.
//  - GitLab: `[Section]` / `^[Optional]` / `[Section][N]` headers with default owners; last match
//    wins *within* a section and the owners of every matching section are combined.
// Pattern semantics follow the hosted CLI's implementation, since the owners it computes are what
// users already see: a pattern without a leading `/` matches at any depth, a trailing `/` matches a
// directory's whole tree, and GitHub bare names also match as directory prefixes.

export type CodeownersSyntax = 'github' | 'gitlab';

export interface CodeownersRule {
  /** Pattern as written (escapes resolved). */
  pattern: string;
  owners: string[];
  /** GitLab section name; null for GitHub files. */
  section: string | null;
  /** 1-based line number. */
  line: number;
  readonly regex: RegExp;
}

export interface CodeownersSection {
  name: string;
  optional: boolean;
  approvals: number;
  defaultOwners: string[];
}

export interface CodeownersProblem {
  line: number;
  message: string;
}

export interface Codeowners {
  syntax: CodeownersSyntax;
  rules: CodeownersRule[];
  /** GitLab sections in file order (the implicit default section first); empty for GitHub. */
  sections: CodeownersSection[];
  problems: CodeownersProblem[];
  caseSensitive: boolean;
}

export interface ParseCodeownersOptions {
  /** Default: GitLab when the file has a section header, GitHub otherwise (the CLI tries both). */
  syntax?: CodeownersSyntax | 'auto';
  /**
   * GitLab matches case-sensitively; the hosted CLI's GitHub matcher does not (GitHub itself
   * does). Defaults: GitHub false, GitLab true.
   */
  caseSensitive?: boolean;
}

/** Name of the section holding GitLab entries that precede any header (GitLab's own name). */
export const GITLAB_DEFAULT_SECTION = 'codeowners';

const SECTION_HEADER = /^(\^)?\[([^\]]*)\](?:\[(\d*)\])?(?:\s+(.*))?$/;

/** An owner reference: `@user`, `@org/team`, `@@role` (GitLab) or an email address. */
function isOwnerToken(token: string): boolean {
  return /^@\S+$/.test(token) || /^[^@\s]+@[^@\s]+$/.test(token);
}

/**
 * Splits a line on unescaped whitespace. `\ ` (escaped space) and `\#` become literal; other
 * backslash escapes are left for the glob compiler. A token starting with `#` begins a comment.
 */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inToken = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    const next = line.charAt(i + 1);
    if (c === '\\' && next !== '' && /[\s#]/.test(next)) {
      current += next;
      inToken = true;
      i++;
    } else if (c === '\\' && next !== '') {
      current += c + next;
      inToken = true;
      i++;
    } else if (/\s/.test(c)) {
      if (inToken) tokens.push(current);
      current = '';
      inToken = false;
    } else if (c === '#' && !inToken) {
      break;
    } else {
      current += c;
      inToken = true;
    }
  }
  if (inToken) tokens.push(current);
  return tokens;
}

/** Translates a glob (after anchoring decisions) into a regex source: `*`, `**`, `?`, `[...]`. */
function globToRegexSource(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === '*') {
      if (glob.charAt(i + 1) === '*') {
        while (glob.charAt(i + 1) === '*') i++;
        if (glob.charAt(i + 1) === '/') {
          re += '(?:.*/)?'; // `**/` = zero or more directories
          i++;
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
      } else {
        let body = glob.slice(i + 1, close);
        const negate = body.startsWith('!') || body.startsWith('^');
        if (negate) body = body.slice(1);
        re += `[${negate ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      re += glob.charAt(i + 1).replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
      i++;
    } else {
      re += c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
    }
  }
  return re;
}

function compileGithubPattern(raw: string, caseSensitive: boolean): RegExp {
  let p = raw;
  const anchored = p.startsWith('/');
  p = p.replace(/^\/+/, '');
  const directoryOnly = p.endsWith('/');
  p = p.replace(/\/+$/, '');
  const prefix = anchored ? '' : '(?:.*/)?';
  let suffix: string;
  if (directoryOnly) suffix = '/.*';
  else if (p === '*' || p.endsWith('/*'))
    suffix = ''; // direct children only
  else suffix = '(?:/.*)?'; // a matched directory owns everything below it
  return new RegExp(`^${prefix}${globToRegexSource(p)}${suffix}$`, caseSensitive ? 's' : 'is');
}

function compileGitlabPattern(raw: string, caseSensitive: boolean): RegExp {
  // GitLab's normalisation: `*` → `/**/*`, relative → `/**/…`, trailing `/` → `…**/*`; then a
  // pathname glob against `/path`.
  let p = raw === '*' ? '/**/*' : raw;
  if (!p.startsWith('/')) p = `/**/${p}`;
  if (p.endsWith('/')) p = `${p}**/*`;
  return new RegExp(`^${globToRegexSource(p)}$`, caseSensitive ? 's' : 'is');
}

function looksLikeGitlab(lines: readonly string[]): boolean {
  return lines.some((l) => SECTION_HEADER.test(l.trim()));
}

/** Parses a CODEOWNERS file. Never throws; unusable lines are reported in `problems`. */
export function parseCodeowners(text: string, options: ParseCodeownersOptions = {}): Codeowners {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const syntax: CodeownersSyntax = options.syntax === 'github' || options.syntax === 'gitlab' ? options.syntax : looksLikeGitlab(lines) ? 'gitlab' : 'github';
  const caseSensitive = options.caseSensitive ?? syntax === 'gitlab';
  const rules: CodeownersRule[] = [];
  const problems: CodeownersProblem[] = [];
  const sections: CodeownersSection[] = [];
  let section: CodeownersSection | null = null;
  if (syntax === 'gitlab') {
    section = { name: GITLAB_DEFAULT_SECTION, optional: false, approvals: 0, defaultOwners: [] };
    sections.push(section);
  }

  lines.forEach((rawLine, index) => {
    const lineNo = index + 1;
    const line = rawLine.trim();
    if (!line || line.startsWith('#')) return;

    if (syntax === 'gitlab') {
      const header = SECTION_HEADER.exec(line);
      if (header) {
        const name = (header[2] ?? '').trim();
        if (!name) problems.push({ line: lineNo, message: 'section name missing' });
        const ownerTokens = tokenize(header[4] ?? '');
        const defaultOwners = ownerTokens.filter(isOwnerToken);
        if (ownerTokens.length > defaultOwners.length) problems.push({ line: lineNo, message: 'invalid section owner format' });
        const optional = header[1] === '^';
        const approvals = header[3] ? Number(header[3]) : 0;
        if (optional && approvals > 0) problems.push({ line: lineNo, message: 'optional sections cannot require approvals' });
        // Sections with the same name (any letter case) are one section; headers may repeat.
        const existing = sections.find((s) => s.name.toLowerCase() === name.toLowerCase());
        if (existing) {
          existing.defaultOwners = defaultOwners;
          existing.optional = optional;
          existing.approvals = approvals;
          section = existing;
        } else {
          section = { name, optional, approvals, defaultOwners };
          sections.push(section);
        }
        return;
      }
      if (/^\^?\[[^\]]*$/.test(line)) {
        problems.push({ line: lineNo, message: 'invalid section header' });
        return;
      }
    }

    const tokens = tokenize(line);
    if (tokens.length === 0) return;
    const [pattern, ...rest] = tokens as [string, ...string[]];
    const owners = rest.filter(isOwnerToken);
    if (owners.length < rest.length) problems.push({ line: lineNo, message: `ignored invalid owner(s): ${rest.filter((t) => !isOwnerToken(t)).join(' ')}` });
    if (syntax === 'gitlab' && section) {
      const effective = owners.length > 0 ? owners : section.defaultOwners;
      if (effective.length === 0) problems.push({ line: lineNo, message: 'entry has no owners' });
      // GitLab keys entries by pattern: a repeated pattern replaces the owners but keeps its
      // original position for the "last match wins" order.
      const same = rules.find((r) => r.section === section?.name && r.pattern === pattern);
      if (same) {
        same.owners = effective;
        same.line = lineNo;
      } else {
        rules.push({ pattern, owners: effective, section: section.name, line: lineNo, regex: compileGitlabPattern(pattern, caseSensitive) });
      }
    } else {
      rules.push({ pattern, owners, section: null, line: lineNo, regex: compileGithubPattern(pattern, caseSensitive) });
    }
  });

  return { syntax, rules, sections, problems, caseSensitive };
}

/**
 * Repository-relative form of a test's file: forward slashes, no leading `./` or `/`. Paths must
 * already be relative to the repository root (absolute CI paths need the checkout prefix removed).
 */
export function normalizeOwnedPath(path: string): string {
  let p = path.trim().replace(/\\/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p.replace(/^\/+/, '');
}

/** Owners of a path: GitHub → the last matching rule's owners; GitLab → union across sections. */
export function ownersOf(codeowners: Codeowners, path: string): string[] {
  const target = normalizeOwnedPath(path);
  if (!target) return [];
  if (codeowners.syntax === 'github') {
    for (let i = codeowners.rules.length - 1; i >= 0; i--) {
      const rule = codeowners.rules[i]!;
      if (rule.regex.test(target)) return [...rule.owners];
    }
    return [];
  }
  const rooted = `/${target}`;
  const result: string[] = [];
  for (const section of codeowners.sections) {
    // Within a section the last matching entry wins.
    let winner: CodeownersRule | null = null;
    for (const rule of codeowners.rules) {
      if (rule.section === section.name && rule.regex.test(rooted)) winner = rule;
    }
    for (const owner of winner?.owners ?? []) if (!result.includes(owner)) result.push(owner);
  }
  return result;
}
