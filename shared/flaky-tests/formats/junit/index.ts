// Public surface of the streaming JUnit reader.
export { BoundedText, truncate, type TextBudget } from './bounded-text.js';
export { DEFAULT_MAX_REPORT_BYTES, isGzip, openReport, ReportTooLargeError, type OpenReportOptions } from './open-report.js';
export { collectJUnit, collectJUnitString, hasJUnitErrors, parseJUnit, type CollectedJUnit } from './parse.js';
export { JUnitRunTally, tallyRuns, type JUnitTally } from './run-tally.js';
export { DEFAULT_MAX_TESTCASE_TEXT_CHARS, DEFAULT_MAX_TEXT_CHARS, identityKeyOf, JUnitStreamParser } from './stream-parser.js';
export { parseDurationSeconds, parseJUnitTimestamp, type TimestampParse } from './timestamp.js';
export type * from './types.js';
