import { expect } from 'chai';
import { failureSignature, fnv1a64, mostCommonFailures, normalizeFailureText, summarizeFailure } from '../../../shared/flaky-tests/domain/failure-summary.js';

describe('flaky/failure-summary', () => {
  describe('normalizeFailureText', () => {
    it('replaces timestamps, UUIDs, addresses, hex ids, IPs, durations and numbers', () => {
      const text = [
        'at 2024-12-10T01:00:00.123Z and 2021-03-07 10:36:56 UTC, clock 23:10:07',
        'request 3f507aef-e834-523b-a8ad-edaba6b137be failed at 0x7ffd5c1e2a40',
        'commit 9f86d081884c7d65 on 10.0.0.12:5432 after 1m30.5s (timeout 250 ms, 3 seconds)',
        'expected 42 but was 43.5',
      ].join('\n');
      expect(normalizeFailureText(text)).to.equal(
        [
          'at <TIME> and <TIME>, clock <TIME>',
          'request <UUID> failed at <ADDR>',
          'commit <HEX> on <IP> after <DURATION> (timeout <DURATION>, <DURATION>)',
          'expected <NUM> but was <NUM>',
        ].join('\n'),
      );
    });

    it('replaces temporary paths on every OS', () => {
      expect(normalizeFailureText('open /tmp/pytest-of-me/pytest-12/test_x0/data.json: no such file')).to.equal('open <TMP> no such file');
      expect(normalizeFailureText('wrote /private/var/folders/zz/abc123/T/out.txt')).to.equal('wrote <TMP>');
      expect(normalizeFailureText('C:\\Users\\me\\AppData\\Local\\Temp\\jest_abc\\x.js missing')).to.equal('<TMP> missing');
    });

    it('keeps identifiers that merely contain digits', () => {
      expect(normalizeFailureText('utf8 test_x2 sha256')).to.equal('utf8 test_x2 sha256');
    });

    it('collapses whitespace and drops blank and repeated lines', () => {
      expect(normalizeFailureText('  a   b \n\n a b\n\nc\n')).to.equal('a b\nc');
    });
  });

  describe('summarizeFailure', () => {
    it('prefers the message attribute and prefixes exception types', () => {
      expect(summarizeFailure({ message: 'expected [1.2.1] but found [1.2.0]', type: 'java.lang.AssertionError' })).to.equal(
        'java.lang.AssertionError: expected [1.2.1] but found [1.2.0]',
      );
      expect(summarizeFailure({ message: 'AssertionError: assert 1 == 2', type: 'AssertionError' })).to.equal('AssertionError: assert 1 == 2');
      expect(summarizeFailure({ message: 'REQUIRE(v == 1) expands to 0 == 10', type: 'REQUIRE' })).to.equal('REQUIRE(v == 1) expands to 0 == 10');
    });

    it('skips generic messages and runner chatter (gotestsum)', () => {
      const text =
        '=== RUN   TestPassEveryThirdExecution\n    counter_test.go:74: current count is 1 for runner GOTESTSUM\n--- FAIL: TestPassEveryThirdExecution (0.20s)\n';
      expect(summarizeFailure({ message: 'Failed', text })).to.equal('counter_test.go:74: current count is 1 for runner GOTESTSUM');
    });

    it('uses the pytest "E" line, also inside a multi-line message', () => {
      const msg =
        'self = <x>\n\n    def test_rsh_events(self):\n>       self.do_test_rsh_events(3)\n\ntest_spark.py:852: in do_test_rsh\nE   AssertionError: 143 != 0';
      expect(summarizeFailure({ message: msg })).to.equal('AssertionError: 143 != 0');
    });

    it('uses the exception line of a Python traceback', () => {
      const text = 'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n    import y\nModuleNotFoundError: No module named \'y\'';
      expect(summarizeFailure({ message: 'exited with error code 1', text })).to.equal('exited with error code 1');
      expect(summarizeFailure({ text })).to.equal("ModuleNotFoundError: No module named 'y'");
    });

    it('skips leading blank lines and stack frames (Surefire)', () => {
      expect(summarizeFailure({ message: '\nExpected: <false>\n     but: was <true>', type: 'java.lang.AssertionError' })).to.equal(
        'java.lang.AssertionError: Expected: <false>',
      );
      expect(summarizeFailure({ text: '\n\tat foo.Bar(Bar.java:1)\njava.lang.IllegalStateException: boom' })).to.equal('java.lang.IllegalStateException: boom');
    });

    it('falls back to the type, then to null', () => {
      expect(summarizeFailure({ type: 'junit.framework.AssertionFailedError' })).to.equal('junit.framework.AssertionFailedError');
      expect(summarizeFailure({})).to.equal(null);
      expect(summarizeFailure({ message: '', text: '   \n ' })).to.equal(null);
    });

    it('drops terminal colour codes', () => {
      expect(summarizeFailure({ text: '\u001b[31mexpect(received).toBe(expected)\u001b[39m' })).to.equal('expect(received).toBe(expected)');
      expect(normalizeFailureText('\u001b[1mExpected: 3\u001b[22m')).to.equal('Expected: <NUM>');
    });

    it('caps the summary length', () => {
      expect(summarizeFailure({ message: 'x'.repeat(1000) })).to.have.length(300);
    });
  });

  describe('failureSignature / mostCommonFailures', () => {
    it('gives the same key to failures that differ only in volatile tokens', () => {
      const a = failureSignature({ message: 'timeout after 5.2s waiting for 10.0.0.1:8080 (req 3f507aef-e834-523b-a8ad-edaba6b137be)' });
      const b = failureSignature({ message: 'timeout after 7s waiting for 10.0.0.9:8081 (req 06cb6db5-f807-5198-b072-af67a0636f8a)' });
      const c = failureSignature({ message: 'connection refused' });
      expect(a?.key).to.equal(b?.key);
      expect(a?.key).to.not.equal(c?.key);
      expect(a?.key).to.match(/^[0-9a-f]{16}$/);
      expect(failureSignature({})).to.equal(null);
    });

    it('computes FNV-1a 64 correctly', () => {
      expect(fnv1a64('')).to.equal('cbf29ce484222325');
      expect(fnv1a64('a')).to.equal('af63dc4c8601ec8c');
    });

    it('groups, counts and orders occurrences in the API shape', () => {
      const result = mostCommonFailures([
        { message: 'expected 1 but was 2', at: '2025-01-01T00:00:00Z' },
        { message: 'connection refused', at: '2025-01-03T00:00:00Z' },
        { message: 'expected 3 but was 4', at: '2025-01-02T00:00:00Z' },
        { message: '', text: '' },
        { message: 'no timestamp here' },
      ]);
      expect(result).to.deep.equal([
        { summary: 'expected 3 but was 4', occurrence_count: 2, last_occurrence: '2025-01-02T00:00:00.000Z' },
        { summary: 'connection refused', occurrence_count: 1, last_occurrence: '2025-01-03T00:00:00.000Z' },
        { summary: 'no timestamp here', occurrence_count: 1 },
      ]);
      expect(mostCommonFailures([{ message: 'a' }, { message: 'b' }], 1)).to.have.length(1);
    });
  });
});
