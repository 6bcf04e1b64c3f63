// Push-style streaming JUnit parser: write() byte chunks, receive runs and issues through a
// callback as soon as each <testcase> closes. Memory is bounded by the caps in JUnitParseOptions,
// never by the document: texts are cut to a cap while they stream in (including inside saxes'
// own buffers, see enforceSaxesLimits), at most one completed testcase is held back (for the
// CLI's single-testcase suite-output rule), and identity tracking stores 16-byte hashes.
//
// Semantics follow the hosted CLI's parser (flaky-tests notes §2.3) where it decides something:
// nested suites flatten into the outermost (its name is `parent`), first status element wins,
// testcases outside a suite are dropped, text is trimmed. Where it is silent we keep more
// information (every rerun attempt, suite paths, location hints).
import { hash } from 'node:crypto';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { BoundedText, truncate, type TextBudget } from './bounded-text.js';
import { parseDurationSeconds, parseJUnitTimestamp } from './timestamp.js';
import type {
  JUnitFailureKind,
  JUnitIssue,
  JUnitIssueCode,
  JUnitItem,
  JUnitParseOptions,
  JUnitRerunElement,
  JUnitRun,
  JUnitStatusDetail,
  JUnitStatusElement,
} from './types.js';
import { XmlByteDecoder } from './xml-decoder.js';

export const DEFAULT_MAX_TEXT_CHARS = 64 * 1024;
export const DEFAULT_MAX_TESTCASE_TEXT_CHARS = 512 * 1024;
const DEFAULT_MAX_DEPTH = 256;
const DEFAULT_MAX_RERUNS = 100;
const DEFAULT_MAX_IDENTITIES = 250_000;
const DEFAULT_MAX_ISSUES = 100;
const DEFAULT_MAX_PROPERTIES = 100;
/** Names/entities longer than this are not XML a test reporter wrote. */
const MAX_NAME_CHARS = 64 * 1024;
const MAX_ATTRIBUTES_PER_ELEMENT = 10_000;
/** Longest string handed to saxes at once, so its per-call buffers stay small. */
export const MAX_SAX_CHUNK_CHARS = 64 * 1024;
/**
 * Well-formedness errors tolerated in one document. Each costs saxes an Error object, so a flood
 * (a report of control bytes) would hold the event loop for seconds: past this, parsing stops.
 */
const MAX_SAX_ERRORS = 1000;
/** Thrown from saxes' error handler to leave `write` at once when parsing stops. */
const STOP_PARSING = Symbol('stop parsing');
/** The CLI's validator truncates longer names; we only warn. */
const LONG_NAME_CHARS = 1000;

const RERUN_ELEMENTS: ReadonlySet<string> = new Set(['flakyFailure', 'flakyError', 'rerunFailure', 'rerunError']);

/** A run as the parser emits it. */
type RunItem = { kind: 'run' } & JUnitRun;

type FrameKind = 'report' | 'suite' | 'testcase' | 'status' | 'rerun' | 'text' | 'properties' | 'property' | 'ignored';

interface Frame {
  kind: FrameKind;
  /** Where text/CDATA directly inside this element goes. */
  text: BoundedText | null;
}

interface SuiteInfo {
  name: string;
  file: string | null;
  filepath: string | null;
  startedAt: Date | null;
}

/** The outermost suite and what the CLI's rules need from it. */
interface Group {
  name: string;
  file: string | null;
  filepath: string | null;
  testcaseCount: number;
  /** Runs of the first testcase, held until we know whether it is the only one. */
  pending: RunItem[] | null;
  systemOut: BoundedText;
  systemErr: BoundedText;
}

interface AttemptState {
  element: JUnitStatusElement;
  /** The testcase's own <failure>/<error>, as opposed to a rerun child element. */
  isStatus: boolean;
  message: string | null;
  type: string | null;
  text: BoundedText;
  stackTrace: BoundedText;
  systemOut: BoundedText;
  systemErr: BoundedText;
  durationMs: number | null;
  startedAt: Date | null;
  file: string | null;
  line: number | null;
  attrTruncated: boolean;
}

interface CaseState {
  name: string;
  classname: string | null;
  fileAttr: string | null;
  filepathAttr: string | null;
  idAttribute: string | null;
  line: number | null;
  durationMs: number | null;
  startedAt: Date | null;
  budget: TextBudget;
  status: AttemptState | null;
  attempts: AttemptState[];
  rerunsIgnored: number;
  systemOut: BoundedText;
  systemErr: BoundedText;
  properties: Record<string, string>;
  propertyCount: number;
  attrTruncated: boolean;
}

/** Fields of saxes' private state we cap (see enforceSaxesLimits). */
interface SaxesInternals {
  text?: unknown;
  name?: unknown;
  entity?: unknown;
  piTarget?: unknown;
  attribList?: unknown;
}

type CountedWarning = 'missing-name' | 'long-name' | 'text-truncated' | 'too-many-reruns' | 'unparsed-timestamp';

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function parseLine(raw: string | null): number | null {
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** Stable identity of a run within one file (everything the test id depends on except org/repo/variant). */
export function identityKeyOf(run: Pick<JUnitRun, 'file' | 'classname' | 'parent' | 'name' | 'idAttribute'>): string {
  return JSON.stringify([run.file ?? '', run.classname ?? '', run.parent, run.name, run.idAttribute ?? '']);
}

/** What every run of one testcase shares. */
type TestcaseBase = Pick<JUnitRun, 'name' | 'classname' | 'file' | 'fileHint' | 'line' | 'parent' | 'suitePath' | 'idAttribute' | 'properties'>;

/** What differs between the runs of one testcase. */
type RunSpec = Omit<JUnitRun, keyof TestcaseBase | 'attempt' | 'attemptInTestcase' | 'attemptsInTestcase' | 'testcaseOccurrence'>;

/**
 * The runs one testcase element records, in attempt order: skipped (which wins over any rerun
 * children, as the CLI ignores reruns of skipped tests), else one failed run per failing attempt
 * and a final pass when its status is not a failure.
 */
function runSpecsOf(c: CaseState): RunSpec[] {
  const caseTexts = {
    systemOut: c.systemOut.value(),
    systemErr: c.systemErr.value(),
    truncated: c.attrTruncated || c.systemOut.truncated || c.systemErr.truncated,
  };
  if (c.status?.element === 'skipped') {
    return [
      {
        outcome: 'skipped',
        failureKind: null,
        detail: detailOf(c.status),
        systemOut: caseTexts.systemOut,
        systemErr: caseTexts.systemErr,
        durationMs: c.durationMs,
        startedAt: c.startedAt,
        rerunElement: null,
        truncated: caseTexts.truncated || c.status.attrTruncated || c.status.text.truncated,
      },
    ];
  }
  // Document order is attempt order: Surefire writes <failure> (first run) then reruns,
  // Playwright writes reruns then the final <failure>; flaky elements precede the final pass.
  const specs = c.attempts.map((a): RunSpec => ({
    outcome: 'failed',
    failureKind: failureKindOf(a.element),
    detail: detailOf(a),
    systemOut: a.isStatus ? caseTexts.systemOut : a.systemOut.value(),
    systemErr: a.isStatus ? caseTexts.systemErr : a.systemErr.value(),
    durationMs: a.durationMs,
    startedAt: a.startedAt,
    rerunElement: a.isStatus ? null : (a.element as JUnitRerunElement),
    truncated:
      (a.isStatus && caseTexts.truncated) || a.attrTruncated || a.text.truncated || a.stackTrace.truncated || a.systemOut.truncated || a.systemErr.truncated,
  }));
  if (!c.status) {
    specs.push({
      outcome: 'passed',
      failureKind: null,
      detail: null,
      systemOut: caseTexts.systemOut,
      systemErr: caseTexts.systemErr,
      durationMs: c.durationMs,
      startedAt: c.startedAt,
      rerunElement: null,
      truncated: caseTexts.truncated,
    });
  }
  return specs;
}

export class JUnitStreamParser {
  private readonly maxText: number;
  private readonly maxCaseText: number;
  private readonly maxDepth: number;
  private readonly maxReruns: number;
  private readonly maxIdentities: number;
  private readonly maxIssues: number;
  private readonly maxProperties: number;

  private readonly decoder = new XmlByteDecoder();
  private readonly sax: SaxesParser<{ xmlns: false; position: true }>;
  private readonly frames: Frame[] = [];
  private readonly suites: SuiteInfo[] = [];
  private group: Group | null = null;
  private current: CaseState | null = null;
  private rerun: AttemptState | null = null;
  /** Name of a <property> whose value is its body, while that body streams in. */
  private pendingPropertyName: string | null = null;
  private readonly identities = new Map<string, number>();
  private identitiesFull = false;

  private rootCount = 0;
  private readonly rootKinds = new Set<string>();
  private reportStartedAt: Date | null = null;
  private sawContent = false;
  private aborted = false;
  private ended = false;
  private issueCount = 0;
  private issuesCapped = false;
  private readonly seenMessages = new Set<string>();
  private readonly counted = new Map<CountedWarning, { count: number; example: string }>();
  private truncatedDocumentReported = false;
  /** First well-formedness complaint seen before the root element. */
  private preRootError: string | null = null;
  private saxErrors = 0;

  constructor(
    private readonly emit: (item: JUnitItem) => void,
    options: JUnitParseOptions = {},
  ) {
    this.maxText = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
    this.maxCaseText = options.maxTestcaseTextChars ?? DEFAULT_MAX_TESTCASE_TEXT_CHARS;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.maxReruns = options.maxRerunsPerTestcase ?? DEFAULT_MAX_RERUNS;
    this.maxIdentities = options.maxTrackedIdentities ?? DEFAULT_MAX_IDENTITIES;
    this.maxIssues = options.maxIssues ?? DEFAULT_MAX_ISSUES;
    this.maxProperties = options.maxProperties ?? DEFAULT_MAX_PROPERTIES;

    this.sax = new SaxesParser({ xmlns: false, position: true });
    this.sax.on('opentag', (tag) => this.onOpen(tag));
    this.sax.on('closetag', () => this.onClose());
    this.sax.on('text', (text) => this.onText(text));
    this.sax.on('cdata', (text) => this.onText(text));
    this.sax.on('error', (err) => this.onSaxError(err.message));
  }

  /** Feeds bytes (or already-decoded text). */
  write(chunk: Uint8Array | string): void {
    if (this.ended) throw new Error('JUnitStreamParser: write after end');
    if (this.aborted) return;
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    this.feed(text);
  }

  /** Finishes the document: flushes held runs and reports end-of-document problems. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.aborted) {
      this.feed(this.decoder.end());
      for (const w of this.decoder.warnings) this.issue('warning', 'unknown-encoding', w.message);
      this.guard(() => this.sax.close());
    }
    if (this.group?.pending) this.flushPending(this.group, true);
    // An aborted document already carries its error (read failure, limit, internal error).
    if (this.rootCount === 0 && !this.aborted) {
      const why = this.preRootError ? ` (${this.preRootError.replace(/\.$/, '')})` : '';
      this.issue('error', 'not-xml', this.sawContent ? `not an XML document: no element found${why}` : 'empty document');
    }
    for (const [code, { count, example }] of this.counted) {
      this.issue('warning', code, count === 1 ? example : `${example} (${count} occurrences)`, undefined, true);
    }
  }

  /** Reports a failure of the byte source; the document ends where the bytes stopped. */
  fail(message: string): void {
    this.issue('error', 'read-failed', message, undefined, true);
    this.aborted = true;
  }

  // ---- feeding -------------------------------------------------------------------------------

  private feed(text: string): void {
    for (let i = 0; i < text.length && !this.aborted; i += MAX_SAX_CHUNK_CHARS) {
      const piece = text.length <= MAX_SAX_CHUNK_CHARS ? text : text.slice(i, i + MAX_SAX_CHUNK_CHARS);
      if (!this.sawContent && this.rejectsStart(piece)) return;
      this.guard(() => this.sax.write(piece));
      this.enforceSaxesLimits();
    }
  }

  /**
   * The first bytes decide: an XML document starts (after a byte order mark and whitespace) with
   * `<`. Anything else is refused at once, before saxes spends time on every byte of it.
   */
  private rejectsStart(piece: string): boolean {
    const first = /\S/.exec(piece);
    if (!first) return false;
    this.sawContent = true;
    const char = piece[first.index]!;
    if (char === '<') return false;
    const code = char.codePointAt(0) ?? 0;
    const shown = code >= 0x20 && code < 0x7f ? JSON.stringify(char) : `U+${code.toString(16).padStart(4, '0').toUpperCase()}`;
    this.issue('error', 'not-xml', `not an XML document: it starts with ${shown}, not "<"`);
    this.aborted = true;
    return true;
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (err === STOP_PARSING) return;
      // Our handlers must never take the caller's stream down; report and stop this document.
      this.issue('error', 'internal-error', `parser failure: ${(err as Error).message}`, undefined, true);
      this.aborted = true;
    }
  }

  /**
   * saxes accumulates a text node, attribute value or comment in full before emitting it. We cut
   * its private buffer between chunks (keeping cap+1 chars so the cut is still detected as
   * truncation) and stop on absurd names, so a single giant node cannot exhaust memory. If a saxes
   * release renames these fields the checks simply do nothing; the memory test would catch it.
   */
  private enforceSaxesLimits(): void {
    const s = this.sax as unknown as SaxesInternals;
    if (typeof s.text === 'string' && s.text.length > this.maxText + 1) {
      s.text = truncate(s.text, this.maxText + 1).value;
    }
    for (const field of [s.name, s.entity, s.piTarget]) {
      if (typeof field === 'string' && field.length > MAX_NAME_CHARS) {
        this.stop('limit-exceeded', 'element/attribute/entity name longer than 64 Ki characters');
        return;
      }
    }
    if (Array.isArray(s.attribList) && s.attribList.length > MAX_ATTRIBUTES_PER_ELEMENT) {
      this.stop('limit-exceeded', `element with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes`);
    }
  }

  private stop(code: JUnitIssueCode, message: string): void {
    if (this.aborted) return;
    this.issue('error', code, `${message}; parsing stopped`, this.sax.line);
    this.aborted = true;
  }

  // ---- issues --------------------------------------------------------------------------------

  private issue(level: JUnitIssue['level'], code: JUnitIssueCode, message: string, line?: number, force = false): void {
    if (!force && this.issueCount >= this.maxIssues) {
      if (!this.issuesCapped) {
        this.issuesCapped = true;
        this.emit({ kind: 'issue', level: 'warning', code: 'issues-capped', message: `more than ${this.maxIssues} issues; further ones omitted` });
      }
      return;
    }
    this.issueCount++;
    const item: JUnitItem = line === undefined ? { kind: 'issue', level, code, message } : { kind: 'issue', level, code, message, line };
    this.emit(item);
  }

  /** Frequent, per-testcase warnings are aggregated into one issue at the end. */
  private countWarning(code: CountedWarning, example: string): void {
    const entry = this.counted.get(code);
    if (entry) entry.count++;
    else this.counted.set(code, { count: 1, example });
  }

  private onSaxError(raw: string): void {
    if (++this.saxErrors > MAX_SAX_ERRORS) {
      this.stop('malformed-xml', `more than ${MAX_SAX_ERRORS} well-formedness errors`);
      throw STOP_PARSING;
    }
    const message = raw.replace(/^\d+:\d+:\s*/, '');
    if (message.startsWith('documents may contain only one root')) return; // handled in onOpen
    if (message.startsWith('document must contain a root element')) return; // reported at end
    if (message.startsWith('unclosed tag')) {
      if (!this.truncatedDocumentReported) {
        this.truncatedDocumentReported = true;
        const dropped = this.current ? '; the unfinished testcase was dropped' : '';
        this.issue('error', 'truncated-document', `document ended inside <${message.slice('unclosed tag: '.length)}>${dropped}`, this.sax.line);
      }
      return;
    }
    if (message.startsWith('unexpected end')) return; // the unclosed-tag errors that follow say more
    if (this.rootCount === 0) {
      // Before any element we cannot tell junk from a non-XML file yet; decide at the root or end.
      this.preRootError ??= message;
      return;
    }
    if (this.seenMessages.has(message)) return;
    this.seenMessages.add(message);
    this.issue('warning', 'malformed-xml', message, this.sax.line);
  }

  // ---- element handling ----------------------------------------------------------------------

  private attr(tag: SaxesTagPlain, name: string): string | null {
    const v = tag.attributes[name];
    if (v === undefined) return null;
    if (v.length <= this.maxText) return v;
    if (this.current) this.current.attrTruncated = true;
    this.countWarning('text-truncated', `text longer than ${this.maxText} characters truncated`);
    return truncate(v, this.maxText).value;
  }

  private timestampAttr(tag: SaxesTagPlain): Date | null {
    const raw = this.attr(tag, 'timestamp');
    const parsed = parseJUnitTimestamp(raw);
    if (parsed.ok) return parsed.value;
    this.countWarning('unparsed-timestamp', `unrecognised timestamp "${(raw ?? '').slice(0, 100)}" ignored`);
    return null;
  }

  private push(kind: FrameKind, text: BoundedText | null = null): void {
    this.frames.push({ kind, text });
  }

  private onOpen(tag: SaxesTagPlain): void {
    if (this.aborted) return;
    if (this.frames.length >= this.maxDepth) {
      this.stop('too-deep', `elements nested deeper than ${this.maxDepth}`);
      return;
    }
    const name = localName(tag.name);
    if (this.frames.length === 0) {
      this.openRoot(tag, name);
      return;
    }
    const parent = this.frames[this.frames.length - 1]!.kind;
    if (parent === 'ignored' || parent === 'text' || parent === 'property') {
      this.push('ignored');
      return;
    }
    switch (name) {
      case 'testsuite':
        if (parent === 'report' || parent === 'suite') this.openSuite(tag);
        else this.push('ignored');
        return;
      case 'testsuites':
        // A report inside a report: the CLI starts a second report (and flags it).
        if (parent === 'report' || parent === 'suite') {
          this.issue('error', 'multiple-reports', 'nested <testsuites> element', this.sax.line);
          this.push('report');
        } else {
          this.push('ignored');
        }
        return;
      case 'testcase':
        if (parent === 'suite') this.openTestcase(tag);
        else {
          if (parent === 'report') this.issue('error', 'testcase-outside-suite', 'testcase outside any <testsuite> dropped', this.sax.line);
          this.push('ignored');
        }
        return;
      case 'failure':
      case 'error':
      case 'skipped':
        if (parent === 'testcase') this.openStatus(tag, name);
        else this.push('ignored');
        return;
      case 'system-out':
      case 'system-err':
        this.openOutput(parent, name);
        return;
      case 'stackTrace':
        this.push(parent === 'rerun' && this.rerun ? 'text' : 'ignored', parent === 'rerun' && this.rerun ? this.rerun.stackTrace : null);
        return;
      case 'properties':
        this.push(parent === 'testcase' ? 'properties' : 'ignored');
        return;
      case 'property':
        this.openProperty(tag, parent);
        return;
      default:
        if (RERUN_ELEMENTS.has(name) && parent === 'testcase') this.openRerun(tag, name as JUnitRerunElement);
        else this.push('ignored');
    }
  }

  private openRoot(tag: SaxesTagPlain, name: string): void {
    this.rootCount++;
    if (this.rootCount === 1 && this.preRootError) {
      this.issue('warning', 'malformed-xml', `before the root element: ${this.preRootError}`, this.sax.line);
    }
    if (name !== 'testsuites' && name !== 'testsuite') {
      // Not a JUnit report: nothing in it is ours; stop reading this document.
      this.stop('not-junit', `root element <${tag.name}> is not <testsuites> or <testsuite>`);
      return;
    }
    if (this.rootCount > 1) {
      if (name === 'testsuites' && this.rootKinds.has('testsuites')) {
        this.issue('error', 'multiple-reports', 'more than one <testsuites> element in one file', this.sax.line);
      } else if (!this.rootKinds.has(`multi:${name}`)) {
        this.rootKinds.add(`multi:${name}`);
        this.issue('warning', 'multiple-roots', `several top-level <${name}> elements (not well-formed XML; accepted)`, this.sax.line);
      }
    }
    this.rootKinds.add(name);
    if (name === 'testsuites') {
      this.reportStartedAt = this.timestampAttr(tag);
      this.push('report');
    } else {
      this.openSuite(tag);
    }
  }

  private openSuite(tag: SaxesTagPlain): void {
    const info: SuiteInfo = {
      name: this.attr(tag, 'name') ?? '',
      file: this.attr(tag, 'file'),
      filepath: this.attr(tag, 'filepath'),
      startedAt: this.timestampAttr(tag),
    };
    if (this.suites.length === 0) {
      this.group = {
        name: info.name,
        file: info.file,
        filepath: info.filepath,
        testcaseCount: 0,
        pending: null,
        systemOut: new BoundedText(this.maxText, { remaining: this.maxText }),
        systemErr: new BoundedText(this.maxText, { remaining: this.maxText }),
      };
    }
    this.suites.push(info);
    this.push('suite');
  }

  private openTestcase(tag: SaxesTagPlain): void {
    const group = this.group!;
    group.testcaseCount++;
    // A second testcase means the suite-output inheritance rule cannot apply to the first.
    if (group.testcaseCount === 2 && group.pending) this.flushPending(group, false);
    const budget: TextBudget = { remaining: this.maxCaseText };
    const state: CaseState = {
      name: '',
      classname: null,
      fileAttr: null,
      filepathAttr: null,
      idAttribute: null,
      line: null,
      durationMs: null,
      startedAt: null,
      budget,
      status: null,
      attempts: [],
      rerunsIgnored: 0,
      systemOut: new BoundedText(this.maxText, budget),
      systemErr: new BoundedText(this.maxText, budget),
      properties: {},
      propertyCount: 0,
      attrTruncated: false,
    };
    this.current = state;
    state.name = this.attr(tag, 'name') ?? '';
    state.classname = this.attr(tag, 'classname');
    state.fileAttr = this.attr(tag, 'file');
    state.filepathAttr = this.attr(tag, 'filepath');
    state.idAttribute = this.attr(tag, 'id');
    state.line = parseLine(this.attr(tag, 'line')) ?? parseLine(this.attr(tag, 'lineno'));
    state.durationMs = parseDurationSeconds(this.attr(tag, 'time'));
    state.startedAt = this.timestampAttr(tag) ?? this.inheritedTimestamp();
    if (!state.name) this.countWarning('missing-name', 'testcase without a name (kept with name "")');
    if (state.name.length > LONG_NAME_CHARS || (state.classname?.length ?? 0) > LONG_NAME_CHARS) {
      this.countWarning('long-name', `testcase name or classname longer than ${LONG_NAME_CHARS} characters`);
    }
    this.push('testcase');
  }

  private inheritedTimestamp(): Date | null {
    for (let i = this.suites.length - 1; i >= 0; i--) {
      const t = this.suites[i]!.startedAt;
      if (t) return t;
    }
    return this.reportStartedAt;
  }

  private newAttempt(tag: SaxesTagPlain, element: JUnitStatusElement, isStatus: boolean): AttemptState {
    const c = this.current!;
    const before = c.attrTruncated;
    c.attrTruncated = false;
    const attempt: AttemptState = {
      element,
      isStatus,
      message: this.attr(tag, 'message'),
      type: this.attr(tag, 'type'),
      text: new BoundedText(this.maxText, c.budget),
      stackTrace: new BoundedText(this.maxText, c.budget),
      systemOut: new BoundedText(this.maxText, c.budget),
      systemErr: new BoundedText(this.maxText, c.budget),
      durationMs: isStatus ? c.durationMs : parseDurationSeconds(this.attr(tag, 'time')),
      startedAt: isStatus ? c.startedAt : (this.timestampAttr(tag) ?? c.startedAt),
      file: this.attr(tag, 'file'),
      line: parseLine(this.attr(tag, 'line')),
      attrTruncated: false,
    };
    attempt.attrTruncated = c.attrTruncated;
    c.attrTruncated = before;
    return attempt;
  }

  private openStatus(tag: SaxesTagPlain, element: 'failure' | 'error' | 'skipped'): void {
    const c = this.current!;
    if (c.status) {
      // The CLI keeps the first status element only.
      this.push('ignored');
      return;
    }
    const attempt = this.newAttempt(tag, element, true);
    c.status = attempt;
    if (element !== 'skipped') c.attempts.push(attempt);
    this.push('status', attempt.text);
  }

  private openRerun(tag: SaxesTagPlain, element: JUnitRerunElement): void {
    const c = this.current!;
    if (c.attempts.length - (c.status && c.status.element !== 'skipped' ? 1 : 0) >= this.maxReruns) {
      c.rerunsIgnored++;
      this.countWarning('too-many-reruns', `more than ${this.maxReruns} rerun elements in one testcase; the rest ignored`);
      this.push('ignored');
      return;
    }
    const attempt = this.newAttempt(tag, element, false);
    c.attempts.push(attempt);
    this.rerun = attempt;
    this.push('rerun', attempt.text);
  }

  private openOutput(parent: FrameKind, name: 'system-out' | 'system-err'): void {
    const out = name === 'system-out';
    let target: BoundedText | null = null;
    if (parent === 'rerun' && this.rerun) target = out ? this.rerun.systemOut : this.rerun.systemErr;
    else if (parent === 'testcase' && this.current) target = out ? this.current.systemOut : this.current.systemErr;
    else if (parent === 'suite' && this.group) {
      // Suite-level output is kept once per outermost suite (the CLI keeps the last one seen).
      target = new BoundedText(this.maxText, { remaining: this.maxText });
      if (out) this.group.systemOut = target;
      else this.group.systemErr = target;
    }
    this.push(target ? 'text' : 'ignored', target);
  }

  private openProperty(tag: SaxesTagPlain, parent: FrameKind): void {
    const c = this.current;
    if (parent !== 'properties' || !c) {
      this.push('ignored');
      return;
    }
    const name = this.attr(tag, 'name');
    const value = this.attr(tag, 'value');
    if (name !== null && c.propertyCount < this.maxProperties && !(name in c.properties)) {
      c.propertyCount++;
      if (value !== null) {
        c.properties[name] = value;
        this.push('property');
        return;
      }
      // Some reporters put the value in the element body.
      const body = new BoundedText(this.maxText, c.budget);
      const frame: Frame = { kind: 'property', text: body };
      this.frames.push(frame);
      this.pendingPropertyName = name;
      return;
    }
    this.push('property');
  }

  private onText(text: string): void {
    if (this.aborted) return;
    const top = this.frames[this.frames.length - 1];
    top?.text?.append(text);
  }

  private onClose(): void {
    if (this.aborted) return;
    const frame = this.frames.pop();
    if (!frame) return;
    switch (frame.kind) {
      case 'suite':
        this.suites.pop();
        if (this.suites.length === 0 && this.group) {
          if (this.group.pending) this.flushPending(this.group, true);
          this.group = null;
        }
        return;
      case 'testcase':
        this.closeTestcase();
        return;
      case 'rerun':
        this.rerun = null;
        return;
      case 'property':
        if (frame.text && this.pendingPropertyName !== null && this.current) {
          this.current.properties[this.pendingPropertyName] = frame.text.value() ?? '';
        }
        this.pendingPropertyName = null;
        return;
      default:
        return;
    }
  }

  // ---- building runs -------------------------------------------------------------------------

  /** A testcase element ended: its runs (one per attempt) are numbered by identity and emitted (or held, for a suite's first). */
  private closeTestcase(): void {
    const c = this.current;
    const group = this.group;
    this.current = null;
    this.rerun = null;
    if (!c || !group) return;
    const base = this.identityOf(c, group);
    const specs = runSpecsOf(c);
    const runs = this.numberedRuns(base, specs);
    if (group.testcaseCount === 1) group.pending = runs;
    else for (const run of runs) this.emit(run);
  }

  /** What every run of a testcase shares: its identity, location, suite path and properties. */
  private identityOf(c: CaseState, group: Group): TestcaseBase {
    const file = c.fileAttr ?? c.filepathAttr ?? group.file ?? group.filepath;
    let suiteFile: string | null = null;
    for (let i = this.suites.length - 1; i >= 0 && suiteFile === null; i--) {
      suiteFile = this.suites[i]!.file ?? this.suites[i]!.filepath;
    }
    const statusFile = c.status?.file ?? c.attempts.find((a) => a.file)?.file ?? null;
    return {
      name: c.name,
      classname: c.classname,
      file,
      fileHint: file || suiteFile || statusFile,
      line: c.line ?? c.status?.line ?? null,
      parent: group.name,
      suitePath: this.suites.map((s) => s.name),
      idAttribute: c.idAttribute,
      properties: c.properties,
    };
  }

  /**
   * The runs of one testcase, numbered among the runs and testcase elements of the same identity
   * seen so far in this file (repeated testcases are attempts too).
   */
  private numberedRuns(base: TestcaseBase, specs: readonly RunSpec[]): RunItem[] {
    const key = identityKeyOf(base);
    const hashed = hash('sha1', key, 'base64').slice(0, 16);
    const packed = this.identities.get(hashed);
    // runs seen in the low 26 bits, testcase elements above: one number per identity.
    const priorRuns = packed === undefined ? 0 : packed % 2 ** 26;
    const priorCases = packed === undefined ? 0 : Math.floor(packed / 2 ** 26);
    if (packed !== undefined || this.identities.size < this.maxIdentities) {
      this.identities.set(hashed, (priorCases + 1) * 2 ** 26 + Math.min(priorRuns + specs.length, 2 ** 26 - 1));
    } else if (!this.identitiesFull) {
      this.identitiesFull = true;
      this.issue('warning', 'identity-tracking-full', `more than ${this.maxIdentities} distinct tests; later repeats are not numbered as attempts`);
    }

    // Every run is built with its fields written out, in one order: one object shape for all of
    // them (spreading the parts made each run a slow dictionary object, and most of the parse).
    return specs.map((spec, i) => {
      if (spec.truncated) this.countWarning('text-truncated', `text longer than ${this.maxText} characters truncated`);
      return {
        kind: 'run',
        name: base.name,
        classname: base.classname,
        file: base.file,
        fileHint: base.fileHint,
        line: base.line,
        parent: base.parent,
        suitePath: i === 0 ? base.suitePath : [...base.suitePath],
        idAttribute: base.idAttribute,
        outcome: spec.outcome,
        failureKind: spec.failureKind,
        detail: spec.detail,
        systemOut: spec.systemOut,
        systemErr: spec.systemErr,
        durationMs: spec.durationMs,
        startedAt: spec.startedAt,
        attempt: priorRuns + i,
        attemptInTestcase: i,
        attemptsInTestcase: specs.length,
        rerunElement: spec.rerunElement,
        testcaseOccurrence: priorCases,
        properties: i === 0 ? base.properties : { ...base.properties },
        truncated: spec.truncated,
      };
    });
  }

  /**
   * Emits the held first testcase. When it was the suite's only testcase, failed runs without
   * their own output inherit the suite's system-out/err (the CLI's rule; Bazel test.xml needs it).
   */
  private flushPending(group: Group, onlyTestcase: boolean): void {
    const runs = group.pending ?? [];
    group.pending = null;
    const out = onlyTestcase ? group.systemOut.value() : null;
    const err = onlyTestcase ? group.systemErr.value() : null;
    for (const run of runs) {
      if (run.outcome === 'failed') {
        if (run.systemOut === null && out !== null) run.systemOut = out;
        if (run.systemErr === null && err !== null) run.systemErr = err;
      }
      this.emit(run);
    }
  }
}

function failureKindOf(element: JUnitStatusElement): JUnitFailureKind {
  return element === 'error' || element === 'rerunError' || element === 'flakyError' ? 'error' : 'failure';
}

function detailOf(a: AttemptState): JUnitStatusDetail {
  return {
    element: a.element,
    message: a.message,
    type: a.type,
    text: a.text.value(),
    stackTrace: a.stackTrace.value(),
    file: a.file,
    line: a.line,
  };
}
