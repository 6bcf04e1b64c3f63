// Deterministic failure grouping for `most_common_failures` (flaky-tests notes §1.7). The hosted
// product groups with an LLM; we follow Kubernetes Triage instead: normalise volatile tokens
// (times, ids, addresses, temp paths, durations, numbers) so that runs failing "the same way"
// share a key, and show the first meaningful line (exception type + message) as the summary.

export interface FailureInput {
  /** `message` attribute of `<failure>`/`<error>`. */
  message?: string | null;
  /** Element body / stack trace. */
  text?: string | null;
  /** `type` attribute (exception class in most dialects). */
  type?: string | null;
}

export interface FailureSignature {
  /** Human-readable summary: the first meaningful line, at most MAX_SUMMARY_LENGTH chars. */
  summary: string;
  /** The summary with volatile tokens replaced (what the key is computed from). */
  normalized: string;
  /** Stable 16-hex-digit cluster key (FNV-1a 64 of the normalised summary). */
  key: string;
}

export interface FailureOccurrence extends FailureInput {
  /** When the failing run happened (Date, ISO string or epoch ms). */
  at?: Date | string | number | null;
}

/** Item shape of the API's `most_common_failures`. */
export interface MostCommonFailure {
  summary: string;
  occurrence_count: number;
  last_occurrence?: string;
}

export const MAX_SUMMARY_LENGTH = 300;
/** Cap on normalised text so pathological inputs cannot make grouping expensive. */
export const MAX_NORMALIZED_LENGTH = 10_000;

// Order matters: specific shapes before the generic number rule eats their digits.
const REPLACEMENTS: ReadonlyArray<readonly [RegExp, string]> = [
  // ISO-8601 / RFC-3339 date-times and bare dates.
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?)?\b/g, '<TIME>'],
  // Clock times (12:34:56.789).
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<TIME>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<UUID>'],
  // Memory addresses and hex constants (0x7ffd5c1e…).
  [/\b0x[0-9a-f]+\b/gi, '<ADDR>'],
  // Temporary directories: POSIX /tmp, macOS /var/folders, Windows %TEMP%, CI scratch dirs.
  [/(?:\/private)?\/var\/folders\/[^\s'"`),\]]+/g, '<TMP>'],
  [/\/tmp\/[^\s'"`),\]]+/g, '<TMP>'],
  [/[A-Za-z]:\\(?:[^\s'"\\]+\\)*?(?:Temp|tmp)\\[^\s'"`),\]]+/g, '<TMP>'],
  [/\/home\/runner\/work\/_temp\/[^\s'"`),\]]+/g, '<TMP>'],
  // Long hex runs with at least one digit: hashes, object ids, commit SHAs.
  [/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, '<HEX>'],
  // IPv4 with optional port.
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '<IP>'],
  // Durations: "1.5s", "250 ms", Go-style "1m30.5s", "3 seconds".
  [/\b(?:\d+(?:\.\d+)?(?:h|m|s|ms|us|µs|ns))+\b/g, '<DURATION>'],
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|sec|secs|seconds?|mins?|minutes?|hours?)\b/gi, '<DURATION>'],
  [/\b\d+(?:\.\d+)?\b/g, '<NUM>'],
];

/**
 * Replaces volatile tokens, trims lines, collapses blank space and drops consecutive duplicate
 * lines. Output is stable across runs that fail the same way.
 */
export function normalizeFailureText(text: string): string {
  let s = stripAnsi(text.length > MAX_NORMALIZED_LENGTH * 2 ? text.slice(0, MAX_NORMALIZED_LENGTH * 2) : text);
  for (const [re, token] of REPLACEMENTS) s = s.replace(re, token);
  const out: string[] = [];
  for (const raw of s.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line || line === out[out.length - 1]) continue;
    out.push(line);
  }
  const joined = out.join('\n');
  return joined.length > MAX_NORMALIZED_LENGTH ? joined.slice(0, MAX_NORMALIZED_LENGTH) : joined;
}

/** Terminal colour/cursor sequences (jest, mocha and pytest colour their output). */
// eslint-disable-next-line no-control-regex -- ESC is what these sequences start with
const ANSI_SEQUENCE = /\u001b\[[0-9;?]*[A-Za-z]/g;

function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI_SEQUENCE, '') : text;
}

/** Lines that never describe the failure: separators, runner chatter, stack frames. */
function isNoise(line: string): boolean {
  const t = line.trim();
  if (!t) return true;
  if (/^[-_=*#~.+<>|\s]+$/.test(t)) return true;
  if (/^(?:failed|failure|error|fail|failed\.?|assertion failed)$/i.test(t)) return true;
  if (/^Traceback \(most recent call last\):?$/.test(t)) return true;
  if (/^(?:=== (?:RUN|PAUSE|CONT|NAME)|--- (?:FAIL|PASS|SKIP):|FAIL\s|FAIL$|ok\s|exit status \d+|PASS$)/.test(t)) return true;
  if (/^at\s/.test(t) || /^File ".*", line \d+/.test(t) || /^goroutine \d+ \[/.test(t)) return true;
  if (/^(?:Stacktrace was:|Stack trace:|Caused by:$)/i.test(t)) return true;
  return false;
}

/** First line that says what went wrong, with test-runner specific preferences. */
function firstMeaningfulLine(text: string): string | null {
  const lines = text.split(/\r\n|\r|\n/);
  // pytest prints the assertion explanation on lines starting with "E ".
  for (const line of lines) {
    const m = /^\s*E\s+(\S.*)$/.exec(line);
    if (m?.[1] && !isNoise(m[1])) return m[1].trim();
  }
  // Python tracebacks end with the exception line, the first unindented line after the frames.
  const tb = lines.findIndex((l) => /^\s*Traceback \(most recent call last\):?\s*$/.test(l));
  if (tb >= 0) {
    for (let i = tb + 1; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.trim() && !/^\s/.test(l) && !isNoise(l)) return l.trim();
    }
  }
  for (const line of lines) if (!isNoise(line)) return line.replace(/\s+/g, ' ').trim();
  return null;
}

/** An exception class name worth showing in front of the message. */
function isExceptionType(type: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:[.:]{1,2}[A-Za-z_$][\w$]*)*$/.test(type) && /(?:Error|Exception|Failure|Failed|Panic|Fault)$/.test(type);
}

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return s.slice(0, end);
}

/** The summary shown for a failure, or null when the run carries no usable text. */
export function summarizeFailure(input: FailureInput): string | null {
  let line: string | null = null;
  if (input.message) line = firstMeaningfulLine(stripAnsi(input.message));
  if (!line && input.text) line = firstMeaningfulLine(stripAnsi(input.text));
  const type = input.type?.trim() ?? '';
  if (line && type && isExceptionType(type)) {
    const simple = type.split(/[.:]+/).pop() ?? type;
    if (!line.includes(simple)) line = `${type}: ${line}`;
  }
  if (!line && type) line = type;
  return line ? clip(line, MAX_SUMMARY_LENGTH) : null;
}

/** FNV-1a 64-bit over UTF-16 code units, as 16 hex digits: cheap, stable, dependency-free. */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * prime) & mask;
  }
  return hash.toString(16).padStart(16, '0');
}

/** Summary + cluster key of one failure, or null when there is nothing to group on. */
export function failureSignature(input: FailureInput): FailureSignature | null {
  const summary = summarizeFailure(input);
  if (!summary) return null;
  const normalized = normalizeFailureText(summary);
  return { summary, normalized, key: fnv1a64(normalized) };
}

function toEpochMs(at: FailureOccurrence['at']): number | null {
  if (at === null || at === undefined) return null;
  const ms = at instanceof Date ? at.getTime() : typeof at === 'number' ? at : Date.parse(at);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Groups failures by cluster key: most frequent first (ties: most recent, then summary). Each
 * group shows the summary of its most recent occurrence, since that is what users will see next.
 */
export function mostCommonFailures(occurrences: Iterable<FailureOccurrence>, limit = 10): MostCommonFailure[] {
  const groups = new Map<string, { summary: string; count: number; lastMs: number | null; order: number }>();
  let order = 0;
  for (const occ of occurrences) {
    const sig = failureSignature(occ);
    if (!sig) continue;
    const ms = toEpochMs(occ.at);
    const g = groups.get(sig.key);
    if (!g) {
      groups.set(sig.key, { summary: sig.summary, count: 1, lastMs: ms, order: order++ });
      continue;
    }
    g.count++;
    if (ms !== null && (g.lastMs === null || ms >= g.lastMs)) {
      g.lastMs = ms;
      g.summary = sig.summary;
    }
  }
  return [...groups.values()]
    .sort((a, b) => b.count - a.count || (b.lastMs ?? -Infinity) - (a.lastMs ?? -Infinity) || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map((g) => {
      const item: MostCommonFailure = { summary: g.summary, occurrence_count: g.count };
      if (g.lastMs !== null) item.last_occurrence = new Date(g.lastMs).toISOString();
      return item;
    });
}
