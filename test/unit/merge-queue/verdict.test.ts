import { expect } from 'chai';
import { decideVerdict, MASS_FAILURE_MIN, type VerdictInput, type VerdictTest } from '../../../shared/merge-queue/domain/verdict.js';

const TARGET = 'a'.repeat(40);

function t(name: string, over: Partial<VerdictTest> = {}): VerdictTest {
  return { id: `id-${name}`, name, knownFlaky: false, quarantined: false, onTarget: null, onHead: null, ...over };
}

function input(failedTests: VerdictTest[] | null, over: Partial<VerdictInput> = {}): VerdictInput {
  return {
    ended: 'failed',
    expectsResults: true,
    results: failedTests && { runs: 100, failed: failedTests.length, failedTests },
    targetSha: TARGET,
    targetBranch: 'main',
    ...over,
  };
}

describe('verdict on a failed run', () => {
  it('yours: a test that passed on the target commit the run was built on', () => {
    const v = decideVerdict(input([t('checkout_total', { onTarget: 'passed' }), t('other', { onTarget: 'failed' })]));
    expect(v).to.deep.include({ kind: 'yours', rule: 'passes_on_target', summary: 'checkout_total failed here and passed on main at aaaaaaaaaaaa' });
    expect(v.tests.map((x) => x.name)).to.deep.equal(['checkout_total', 'other']);
  });

  it('yours: no result on the target, but it failed on the pull request’s own head too', () => {
    expect(decideVerdict(input([t('a', { onHead: 'failed' })]))).to.deep.include({ kind: 'yours', rule: 'fails_on_own_head' });
  });

  it('yours: its changes do not merge with what is ahead', () => {
    expect(decideVerdict(input(null, { ended: 'merge_conflict' }))).to.deep.include({ kind: 'yours', rule: 'merge_conflict' });
  });

  it('target branch: every failure that is not a known flake failed on the target commit too, known flaky or not', () => {
    const v = decideVerdict(input([t('a', { onTarget: 'failed' }), t('b', { onTarget: 'failed', knownFlaky: true }), t('flake', { knownFlaky: true })]));
    expect(v).to.deep.include({ kind: 'target_branch', rule: 'fails_on_target', summary: 'a, b failed on main at aaaaaaaaaaaa too, without this change' });
    // One failure that is neither makes it the pull request's.
    expect(decideVerdict(input([t('a', { onTarget: 'failed' }), t('c', { onTarget: 'passed' })])).kind).to.equal('yours');
  });

  it('flaky: only tests known as flaky or quarantined before the run failed', () => {
    const v = decideVerdict(input([t('f', { knownFlaky: true }), t('q', { quarantined: true, onTarget: 'passed' })]));
    expect(v).to.deep.include({ kind: 'flaky', rule: 'only_known_flaky', summary: 'only tests known as flaky or quarantined failed: f, q' });
  });

  it('infrastructure: a timeout, no results where results are uploaded, no failed test, or a mass failure', () => {
    expect(decideVerdict(input(null, { ended: 'timed_out' }))).to.deep.include({ kind: 'infrastructure', rule: 'timeout' });
    expect(decideVerdict(input(null))).to.deep.include({ kind: 'infrastructure', rule: 'no_results' });
    expect(decideVerdict(input([]))).to.deep.include({ kind: 'infrastructure', rule: 'no_failed_test' });
    const many = Array.from({ length: MASS_FAILURE_MIN }, (_, i) => t(`t${i}`, { onTarget: 'passed' }));
    expect(decideVerdict({ ...input(many), results: { runs: 30, failed: 20, failedTests: many } })).to.deep.include({
      kind: 'infrastructure',
      rule: 'mass_failure',
    });
    // Below the minimum, a high share is judged test by test.
    const few = many.slice(0, MASS_FAILURE_MIN - 1);
    expect(decideVerdict({ ...input(few), results: { runs: 20, failed: few.length, failedTests: few } }).kind).to.equal('yours');
  });

  it('unknown, saying what would decide it: no results anywhere, no evidence about the test, or it passes apart', () => {
    expect(decideVerdict(input(null, { expectsResults: false }))).to.deep.include({
      kind: 'unknown',
      rule: 'no_evidence',
      missing: 'test results (JUnit) uploaded for the test branch, which would show which tests failed',
    });
    expect(decideVerdict(input([t('a')]))).to.deep.include({
      kind: 'unknown',
      rule: 'no_evidence',
      missing: "test results for main at aaaaaaaaaaaa (or for the pull request's head) that include that test",
    });
    const apart = decideVerdict(input([t('a', { onTarget: 'passed', onHead: 'passed' })]));
    expect(apart).to.deep.include({
      kind: 'unknown',
      rule: 'passes_apart',
      missing: 'a re-test of the pull request alone on the target branch (the interaction check)',
    });
  });

  describe('interaction: the check found it passes alone and fails only with a batch-mate', () => {
    const interaction = { withEntryId: 'e1', withPrNumber: 1, aloneRunId: 'alone-run', togetherRunId: 'together-run' };

    it('decides over the rules that would have called it its own or undecided, with or without results', () => {
      for (const results of [[t('a', { onTarget: 'passed' })], [t('a', { onTarget: 'passed', onHead: 'passed' })], null]) {
        const v = decideVerdict(input(results, { interaction, expectsResults: results !== null }));
        expect(v).to.deep.include({
          kind: 'interaction',
          rule: 'fails_only_together',
          summary: 'it passes alone on main at aaaaaaaaaaaa (test run alone-run) and fails only together with #1, a pull request of its batch',
          interaction: { withPrNumber: 1, withEntryId: 'e1', aloneRunId: 'alone-run' },
        });
      }
    });

    it('yields only to what the run itself shows of another cause: a timeout, a mass failure, known flakes only, the target branch', () => {
      expect(decideVerdict(input(null, { interaction, ended: 'timed_out' })).kind).to.equal('infrastructure');
      const mass = Array.from({ length: MASS_FAILURE_MIN }, (_, i) => t(`t${i}`, { onTarget: 'passed' }));
      expect(
        decideVerdict({ ...input(mass, { interaction }), results: { runs: MASS_FAILURE_MIN, failed: MASS_FAILURE_MIN, failedTests: mass } }).rule,
      ).to.equal('mass_failure');
      expect(decideVerdict(input([t('a', { knownFlaky: true })], { interaction })).kind).to.equal('flaky');
      expect(decideVerdict(input([t('a', { onTarget: 'failed' })], { interaction })).kind).to.equal('target_branch');
      // Results the repository uploads but that did not arrive do not undo the experiment on statuses.
      expect(decideVerdict(input(null, { interaction, expectsResults: true })).kind).to.equal('interaction');
    });
  });

  it('names at most five tests', () => {
    const six = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => t(n, { onTarget: 'failed' }));
    expect(decideVerdict(input(six)).summary).to.equal('a, b, c, d, e and 1 more failed on main at aaaaaaaaaaaa too, without this change');
  });
});
