// Parses every real-world report in test/fixtures/junit-samples/ and checks the counts we
// established by reading each file and its README entry. A sample without an entry here fails, so
// new fixtures cannot slip in untested.
import { expect } from 'chai';
import { createReadStream, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { testId } from '../../../shared/flaky-tests/domain/test-identity.js';
import { collectJUnit, tallyRuns, type JUnitRun, type JUnitTally } from '../../../shared/flaky-tests/formats/junit/index.js';

// test/unit/flaky-tests/ → ../../../ is the repository (/work/main), one more level is /work.
const SAMPLES_DIR = fileURLToPath(new URL('../../fixtures/junit-samples/', import.meta.url));

interface Expectation {
  /** Counts per JUnitTally: testcases = <testcase> elements, runs = attempts (rerun children expand). */
  tally: JUnitTally;
  /** Issue codes the parser reports for the file. */
  issues?: string[];
  /** File-specific checks of fields the README calls out. */
  check?: (runs: JUnitRun[]) => void;
}

function t(
  testcases: number,
  runs: number,
  passed: number,
  failed: number,
  skipped: number,
  extra: Partial<Pick<JUnitTally, 'errors' | 'rerunElementRuns' | 'tests' | 'retriedTests' | 'flakyTests' | 'failingTests'>> = {},
): JUnitTally {
  return {
    testcases,
    runs,
    passed,
    failed,
    skipped,
    errors: extra.errors ?? 0,
    rerunElementRuns: extra.rerunElementRuns ?? 0,
    tests: extra.tests ?? testcases,
    retriedTests: extra.retriedTests ?? 0,
    flakyTests: extra.flakyTests ?? 0,
    failingTests: extra.failingTests ?? failed,
  };
}

const byName = (runs: JUnitRun[], name: string): JUnitRun[] => runs.filter((r) => r.name === name);

const EXPECTED: Record<string, Expectation> = {
  'dorny_jest-junit_ancestors.xml': {
    tally: t(6, 6, 1, 4, 1),
    check: (runs) => {
      expect(runs[1]!.classname).to.equal('Test 1 › Test 1.1');
      expect(runs[0]!.parent).to.equal('__tests__\\main.test.js');
      expect(runs[1]!.detail?.text).to.match(/^Error: expect\(received\)\.toBeTruthy\(\)/);
      expect(runs[4]!.classname).to.equal('');
    },
  },
  'dorny_phpunit.xml': {
    tally: t(12, 12, 10, 2, 0),
    check: (runs) => {
      // Nested suites: parent is the outermost suite, the testcase's own file wins.
      expect(runs.every((r) => r.parent === 'CLI Arguments')).to.equal(true);
      expect(runs[2]!.suitePath).to.deep.equal(['CLI Arguments', 'PHPUnit\\Event\\CollectingDispatcherTest']);
      expect(runs[0]!.file).to.match(/targeting-traits-with-coversclass-attribute-is-deprecated\.phpt$/);
    },
  },
  'dorny_pytest_xunit2.xml': {
    tally: t(10, 10, 6, 2, 2),
    check: (runs) => {
      expect(byName(runs, 'test_parameterized[param1]')).to.have.length(1);
      expect(byName(runs, 'test_expected_failure')[0]!.detail?.type).to.equal('pytest.xfail');
      expect(byName(runs, 'test_with_record_property')[0]!.properties).to.deep.equal({ example_key: '1' });
      expect(byName(runs, 'test_with_record_xml_attribute')[0]!.classname).to.equal('custom_classname');
      expect(runs.every((r) => r.file === null)).to.equal(true);
    },
  },
  'dorny_swift-xunit.xml': { tally: t(3, 3, 2, 1, 0) },
  'dorny_testng_pulsar_duplicate-name.xml': {
    // The same testcase twice: skipped, then failed — two attempts of one test.
    tally: t(2, 2, 0, 1, 1, { tests: 1, retriedTests: 1 }),
    check: (runs) => {
      expect(runs.map((r) => [r.outcome, r.attempt, r.testcaseOccurrence])).to.deep.equal([
        ['skipped', 0, 0],
        ['failed', 1, 1],
      ]);
      expect(runs[0]!.startedAt?.toISOString()).to.equal('2021-03-07T10:36:56.000Z');
    },
  },
  'enricomi_bazel_test-xml.xml': {
    tally: t(1, 1, 0, 1, 0, { errors: 1 }),
    check: (runs) => {
      // Single testcase: the suite-level system-out/err is inherited (the CLI's rule).
      expect(runs[0]!.systemOut).to.contain('ModuleNotFoundError');
      expect(runs[0]!.systemErr).to.equal('Generated test.err');
      expect(runs[0]!.parent).to.equal('bazel/failing_absl_test');
    },
  },
  'enricomi_jest-junit.xml': { tally: t(2, 2, 2, 0, 0) },
  'enricomi_minimal-attributes.xml': { tally: t(4, 4, 1, 2, 1, { errors: 1 }) },
  'enricomi_mocha_latex-utensils.xml': {
    // 109 testcases but only 101 distinct (classname, name): mocha repeats titles, which share an
    // identity (as in the hosted product) and so read as repeated attempts of 7 tests.
    tally: t(109, 109, 109, 0, 0, { tests: 101, retriedTests: 7 }),
    check: (runs) => {
      expect(runs[0]!.startedAt?.toISOString()).to.equal('2022-12-03T23:10:07.000Z');
      expect(runs[0]!.parent).to.equal('Mocha Tests');
      expect(byName(runs, 'parse \\"\\i')).to.have.length(1);
    },
  },
  'enricomi_nested-testsuites.xml': {
    tally: t(5, 5, 5, 0, 0),
    check: (runs) => {
      expect(runs.every((r) => r.parent === 'Project Test Suite')).to.equal(true);
      expect(runs.map((r) => r.suitePath.length)).to.deep.equal([2, 2, 3, 2, 1]);
    },
  },
  'enricomi_no-attributes.xml': {
    // Four nameless testcases collapse into one identity with pass, skip, failure, error.
    tally: t(4, 4, 1, 2, 1, { errors: 1, tests: 1, retriedTests: 1, flakyTests: 1, failingTests: 1 }),
    issues: ['missing-name'],
  },
  'enricomi_pytest_xunit1_fail.xml': {
    tally: t(5, 5, 3, 1, 1),
    check: (runs) => {
      expect(runs[0]!.file).to.equal('test/test_spark.py');
      expect(runs[0]!.line).to.equal(1412);
      expect(byName(runs, 'test_rsh_events')[0]!.detail?.message).to.contain('AssertionError: 143 != 0');
    },
  },
  'enricomi_scalatest_surefire-style.xml': { tally: t(5, 5, 5, 0, 0) },
  'enricomi_surefire_flaky-and-rerun.xml': {
    // throwsAlways: <error> + 3 rerunError; failsAssertionAlways: <failure> + 3 rerunFailure;
    // two flaky tests: one flakyFailure/flakyError attempt each, then the passing final run.
    tally: t(4, 12, 2, 10, 0, { errors: 5, rerunElementRuns: 8, retriedTests: 4, flakyTests: 2, failingTests: 2 }),
    check: (runs) => {
      expect(byName(runs, 'failsAssertionOnlyFirstAttempt').map((r) => [r.outcome, r.rerunElement])).to.deep.equal([
        ['failed', 'flakyFailure'],
        ['passed', null],
      ]);
      expect(byName(runs, 'throwsAlways').map((r) => r.detail?.element)).to.deep.equal(['error', 'rerunError', 'rerunError', 'rerunError']);
    },
  },
  'enricomi_xml-entities.xml': {
    tally: t(4, 4, 0, 2, 2, { errors: 1 }),
    check: (runs) => {
      expect(runs.map((r) => r.name)).to.deep.equal([
        'Test with "quotes" in the test name',
        "Test with 'apostrophe' in the test name",
        'Test with & in the test name',
        'Test with < and > in the test name',
      ]);
      expect(runs[3]!.detail).to.deep.include({ message: 'A message with < and >', text: 'Content with < and >' });
      expect(runs[0]!.parent).to.equal('');
    },
  },
  'enricomi_xunitnet_bom.xml': {
    tally: t(2, 2, 2, 0, 0),
    check: (runs) => {
      expect(runs[0]!.name).to.equal('mytestapp.Tests.AttriubteTests.SetTestNoFeature');
      expect(runs[0]!.classname).to.equal(null);
    },
  },
  'flake-factory_gotestsum_rerun-fails.xml': {
    // gotestsum --rerun-fails: fail, fail, pass of one test = pass-on-retry in one upload.
    tally: t(3, 3, 1, 2, 0, { tests: 1, retriedTests: 1, flakyTests: 1, failingTests: 0 }),
    check: (runs) => {
      expect(runs.map((r) => [r.outcome, r.attempt])).to.deep.equal([
        ['failed', 0],
        ['failed', 1],
        ['passed', 2],
      ]);
      expect(runs[0]!.startedAt?.toISOString()).to.equal('2024-08-27T19:17:59.000Z');
    },
  },
  'flake-factory_minitest_TEST-ColorMixerTest.xml': {
    tally: t(3, 3, 3, 0, 0),
    check: (runs) => {
      expect(runs.map((r) => [r.file, r.line])).to.deep.equal([
        ['ruby/minitest/mixer.rb', 17],
        ['ruby/minitest/mixer.rb', 7],
        ['ruby/minitest/mixer.rb', 12],
      ]);
    },
  },
  'flake-factory_mocha-junit-reporter.xml': {
    tally: t(2, 2, 1, 1, 0),
    check: (runs) => {
      // Suite-level absolute `file` becomes the test's file; the empty "Root Suite" is not a parent.
      expect(runs[0]!.file).to.equal('/home/eli/Github/flake-factory/tests/mocha/mocha.js');
      expect(runs[0]!.parent).to.equal('Even handed - minute is divible by 2');
      expect(runs[0]!.detail?.text).to.contain('AssertionError [ERR_ASSERTION]');
    },
  },
  'flake-factory_pytest_random-flakes.xml': { tally: t(4, 4, 2, 2, 0) },
  'go-junit-report_fail.xml': {
    tally: t(2, 2, 1, 1, 0),
    check: (runs) => {
      expect(runs[0]!.detail?.text).to.contain('main_test.go:6: Error message');
      // Two testcases: the suite's "exit status 1" is not inherited.
      expect(runs[0]!.systemOut).to.equal(null);
    },
  },
  'go-junit-report_panic.xml': {
    tally: t(1, 1, 0, 1, 0, { errors: 1 }),
    check: (runs) => {
      expect(runs[0]!.detail).to.deep.include({ element: 'error', message: 'Runtime error' });
      expect(runs[0]!.detail?.text).to.match(/^panic: init/);
    },
  },
  'go-junit-report_subtests.xml': { tally: t(4, 4, 2, 2, 0) },
  'gotestsum_junitxml-report.xml': {
    tally: t(60, 60, 42, 13, 5),
    check: (runs) => {
      // Year-0001 timestamps are Go's zero time, i.e. no timestamp.
      expect(runs.every((r) => r.startedAt === null)).to.equal(true);
      expect(byName(runs, 'TestMain')[0]!.classname).to.equal('');
      expect(runs.filter((r) => r.parent === 'gotest.tools/gotestsum/testjson/internal/withfails')).to.have.length(29);
    },
  },
  'mikepenz_cargo-nextest.xml': {
    tally: t(3, 3, 2, 1, 0),
    check: (runs) => {
      expect(runs[0]!.systemOut).to.contain('test test_failure ... FAILED');
      expect(runs[0]!.systemErr).to.contain("thread 'test_failure' panicked");
    },
  },
  'mikepenz_catch2.xml': {
    tally: t(1, 1, 0, 1, 0),
    check: (runs) => {
      // Location on the <failure> element: a hint, not identity.
      expect(runs[0]!.file).to.equal(null);
      expect([runs[0]!.fileHint, runs[0]!.line]).to.deep.equal(['test/unit/detail/utility/is_constant_evaluated.cpp', 19]);
    },
  },
  'mikepenz_marathon_flakyFailure.xml': {
    tally: t(1, 2, 1, 1, 0, { rerunElementRuns: 1, retriedTests: 1, flakyTests: 1, failingTests: 0 }),
    check: (runs) => expect(runs[0]!.detail?.stackTrace).to.equal('junit.framework.AssertionFailedError'),
  },
  'mikepenz_mixed_flaky_and_passed.xml': {
    tally: t(3, 4, 3, 1, 0, { rerunElementRuns: 1, retriedTests: 1, flakyTests: 1, failingTests: 0 }),
  },
  'mikepenz_nested-multi-level.xml': {
    tally: t(3, 3, 3, 0, 0),
    check: (runs) => expect(runs.map((r) => r.parent)).to.deep.equal(['ABC-0199: XMPP Ping', 'ABC-0199: XMPP Ping', 'ABC-0045: Multi-User Chat']),
  },
  'mikepenz_pytest_report.xml': { tally: t(3, 3, 1, 2, 0) },
  'mikepenz_repeated-testcase_all-fail.xml': {
    tally: t(3, 3, 0, 3, 0, { errors: 1, tests: 1, retriedTests: 1, failingTests: 1 }),
  },
  'mikepenz_repeated-testcase_flaky.xml': {
    // test_foo under TestFoo: failure, error, pass; the same name under TestBar is another test.
    tally: t(5, 5, 3, 2, 0, { errors: 1, tests: 3, retriedTests: 1, flakyTests: 1, failingTests: 0 }),
    check: (runs) => {
      expect(byName(runs, 'test_foo').map((r) => [r.classname, r.attempt])).to.deep.equal([
        ['test_foo.TestFoo', 0],
        ['test_foo.TestFoo', 1],
        ['test_foo.TestFoo', 2],
        ['test_bar.TestBar', 0],
      ]);
    },
  },
  'mikepenz_repeated-testcase_pass-first.xml': {
    // Pass, then failure and error: flaky, and the last attempt failed.
    tally: t(3, 3, 1, 2, 0, { errors: 1, tests: 1, retriedTests: 1, flakyTests: 1, failingTests: 1 }),
  },
  'mikepenz_surefire_flakyFailure.xml': {
    tally: t(1, 2, 1, 1, 0, { rerunElementRuns: 1, retriedTests: 1, flakyTests: 1, failingTests: 0 }),
    check: (runs) => {
      expect(runs[0]!.systemErr).to.equal('Some error output here');
      // `&#10;` character references survive attribute normalisation as real newlines.
      expect(runs[0]!.detail?.message).to.equal('\nExpected: <false>\n     but: was <true>');
      expect(runs[0]!.detail?.stackTrace).to.match(/^java\.lang\.AssertionError/);
    },
  },
  'mikepenz_surefire_junit4_StringUtilsTest.xml': {
    tally: t(5, 5, 2, 2, 1),
    check: (runs) => expect(byName(runs, 'require')[0]!.detail).to.deep.include({ message: null, type: 'java.lang.AssertionError' }),
  },
  'trunk-cli_googletest_junit0_fail.xml': {
    tally: t(1, 1, 0, 1, 0),
    check: (runs) => {
      const r = runs[0]!;
      // The worked identity example of notes §1.1, computed from parsed fields.
      const id = testId({ orgUrlSlug: 'acme', repoFullName: 'github.com/acme/widgets', file: r.file, classname: r.classname, parent: r.parent, name: r.name });
      expect(id).to.equal('78c4b9de-1f50-5734-9f31-d4d1cd9f229a');
      expect(r.startedAt?.toISOString()).to.equal('2024-12-10T01:00:00.000Z');
      expect(r.durationMs).to.equal(1);
    },
  },
  'trunk-cli_googletest_junit0_pass.xml': {
    tally: t(1, 1, 1, 0, 0),
    check: (runs) => expect([runs[0]!.durationMs, runs[0]!.startedAt?.toISOString()]).to.deep.equal([0, '2024-12-10T02:00:00.000Z']),
  },
  'trunk-cli_googletest_junit1_fail.xml': {
    tally: t(2, 2, 0, 2, 0),
    check: (runs) =>
      expect(runs.map((r) => [r.name, r.classname, r.parent])).to.deep.equal([
        ['Hello', 'HelloTest', 'HelloTest'],
        ['Goodbye', 'HelloTest', 'GoodbyeTest'],
      ]),
  },
  'trunk-cli_googletest_junit1_pass.xml': { tally: t(2, 2, 2, 0, 0) },
  'trunk-cli_xcresult_swift-testing-mix.junit.xml': {
    tally: t(4, 4, 2, 2, 0),
    check: (runs) => {
      expect(runs[1]!.file).to.contain('swift%20testing%20example');
      expect(runs[1]!.detail?.message).to.equal('swift_testing_exampleTests.swift:31: Expectation failed: (greeting → "Hello, world!") == "Hello"');
      // A v5 `id` attribute is the test id when there is no variant.
      expect(testId({ orgUrlSlug: 'o', repoFullName: 'r', name: runs[1]!.name, infoId: runs[1]!.idAttribute })).to.equal(
        '895f83b5-094f-5899-b004-5da75e1c1019',
      );
    },
  },
  'trunk-cli_xcresult_test1.junit.xml': {
    tally: t(17, 17, 17, 0, 0),
    check: (runs) => expect(runs.every((r) => /^[0-9a-f-]{36}$/.test(r.idAttribute ?? ''))).to.equal(true),
  },
};

describe('flaky/junit reference samples', () => {
  const files = readdirSync(SAMPLES_DIR)
    .filter((f) => f.endsWith('.xml'))
    .sort();

  it('finds the sample directory and has expectations for every sample (and no stale ones)', () => {
    expect(files.length).to.be.greaterThan(40);
    expect(
      files.filter((f) => !(f in EXPECTED)),
      'samples without expectations',
    ).to.deep.equal([]);
    expect(
      Object.keys(EXPECTED).filter((f) => !files.includes(f)),
      'expectations without samples',
    ).to.deep.equal([]);
  });

  for (const file of files) {
    it(`parses ${file}`, async () => {
      const expectation = EXPECTED[file];
      expect(expectation, `no expectation for ${file}`).to.not.equal(undefined);
      const { runs, issues } = await collectJUnit(createReadStream(`${SAMPLES_DIR}${file}`, { highWaterMark: 1024 }));
      expect(issues.map((i) => i.code)).to.deep.equal(expectation!.issues ?? []);
      expect(tallyRuns(runs)).to.deep.equal(expectation!.tally);
      expectation!.check?.(runs);
    });
  }
});
