// Output model of the streaming JUnit parser. One JUnitRun per *attempt* of a test: a testcase
// that failed and passed on rerun yields its failed attempts and the final pass (flaky-tests notes
// §2.3, §2.6), so pass-on-retry is visible to detection without re-reading the XML.
import type { RunOutcome } from '../../domain/model.js';

/** Bytes as they arrive: a Node Readable, a tar entry, a gunzip stream… */
export type ByteSource = AsyncIterable<Uint8Array | string>;

/** `<failure>` vs `<error>` (assertion vs unexpected exception); both count as failed. */
export type JUnitFailureKind = 'failure' | 'error';

/** Surefire/Playwright/nextest child elements that record earlier attempts inside one testcase. */
export type JUnitRerunElement = 'flakyFailure' | 'flakyError' | 'rerunFailure' | 'rerunError';

export type JUnitStatusElement = 'failure' | 'error' | 'skipped' | JUnitRerunElement;

/** The element that decided a run's outcome, with its (bounded) texts. */
export interface JUnitStatusDetail {
  element: JUnitStatusElement;
  message: string | null;
  type: string | null;
  /** Element body (description); for rerun elements the direct text, not the stackTrace. */
  text: string | null;
  /** `<stackTrace>` of rerun elements. */
  stackTrace: string | null;
  /** Catch2 and others put the location on the failure element itself. */
  file: string | null;
  line: number | null;
}

export interface JUnitRun {
  name: string;
  /** `testcase@classname`; null when absent (identity treats it as ""). */
  classname: string | null;
  /**
   * File as the hosted CLI resolves it for identity: testcase `file`, else testcase `filepath`,
   * else outermost suite `file`, else outermost suite `filepath`; null when none.
   */
  file: string | null;
  /**
   * Best location for ownership / links when `file` is null: nearest enclosing suite's
   * `file`/`filepath`, or the failure element's `file` (Catch2). Not part of identity.
   */
  fileHint: string | null;
  /** testcase `line`, else `lineno` (minitest), else the failure element's `line`. */
  line: number | null;
  /** Name of the outermost enclosing `<testsuite>` ("" when unnamed): identity's `parent`. */
  parent: string;
  /** Names of all enclosing suites, outermost first (nested suites are flattened for identity). */
  suitePath: string[];
  /** `testcase@id` (XCResult converter UUIDs, RSpec `trunk:` ids); feeds identity rules. */
  idAttribute: string | null;
  outcome: RunOutcome;
  failureKind: JUnitFailureKind | null;
  detail: JUnitStatusDetail | null;
  systemOut: string | null;
  systemErr: string | null;
  /**
   * testcase `time` (seconds) → milliseconds; null when absent, negative or not a number. Unlike
   * the CLI we do not fall back to the suite's `time`: a suite total is not a test's duration.
   * Rerun attempts use their own `time` when given, else null.
   */
  durationMs: number | null;
  /** testcase `timestamp`, else the nearest suite/report timestamp; null when absent or unparsable. */
  startedAt: Date | null;
  /**
   * 0-based attempt among all runs of the same identity in this file, in document order: covers
   * repeated `<testcase>` elements (gotestsum --rerun-fails, pytest-rerunfailures, TestNG) and
   * rerun child elements alike.
   */
  attempt: number;
  /** 0-based position of this run among the runs of its own `<testcase>` element. */
  attemptInTestcase: number;
  /** Number of runs its `<testcase>` element produced (1 without rerun children). */
  attemptsInTestcase: number;
  /** Set when this run comes from a rerun child element rather than the testcase's final status. */
  rerunElement: JUnitRerunElement | null;
  /** 0-based count of earlier `<testcase>` elements with the same identity in this file. */
  testcaseOccurrence: number;
  /** testcase-level `<property name value>` entries (pytest record_property, annotations). */
  properties: Record<string, string>;
  /** Some text of this run was cut to the configured caps. */
  truncated: boolean;
}

export type JUnitIssueLevel = 'error' | 'warning';

export type JUnitIssueCode =
  | 'not-xml' // no XML element at all
  | 'not-junit' // root element is not <testsuites>/<testsuite>
  | 'malformed-xml' // well-formedness error: a warning while parsing continues, an error once too many stop it
  | 'truncated-document' // ended inside open elements; unfinished testcases dropped
  | 'multiple-reports' // more than one <testsuites> (the CLI flags this as invalid)
  | 'multiple-roots' // several top-level <testsuite> elements (accepted, not well-formed XML)
  | 'testcase-outside-suite' // dropped, as the CLI does
  | 'missing-name' // testcase without a name (kept, name "")
  | 'long-name' // name/classname over 1,000 chars (the CLI's validator truncates)
  | 'unparsed-timestamp'
  | 'text-truncated'
  | 'too-many-reruns'
  | 'too-deep'
  | 'limit-exceeded' // a parser-internal buffer limit; parsing stopped
  | 'identity-tracking-full'
  | 'unknown-encoding'
  | 'read-failed' // the byte source failed (I/O, gzip…)
  | 'issues-capped'
  | 'internal-error';

export interface JUnitIssue {
  level: JUnitIssueLevel;
  code: JUnitIssueCode;
  message: string;
  /** 1-based line in the document when known. */
  line?: number;
}

export type JUnitItem = ({ kind: 'run' } & JUnitRun) | ({ kind: 'issue' } & JUnitIssue);

export interface JUnitParseOptions {
  /** Per text field cap (message, text, stackTrace, system-out/err, attribute values). Default 64 Ki chars. */
  maxTextChars?: number;
  /** Text budget shared by a testcase and all its rerun elements. Default 512 Ki chars. */
  maxTestcaseTextChars?: number;
  /** Maximum element nesting depth. Default 256. */
  maxDepth?: number;
  /** Rerun child elements kept per testcase; more are ignored with an issue. Default 100. */
  maxRerunsPerTestcase?: number;
  /** Distinct identities tracked for attempt numbering. Default 250,000. */
  maxTrackedIdentities?: number;
  /** Issues reported per document before they are summarised. Default 100. */
  maxIssues?: number;
  /** testcase properties kept. Default 100. */
  maxProperties?: number;
}
