// The test results of merge-queue test runs: counts of the linked uploads, and each failed test
// with its status now and as it stood when the run started (the run's own failures never count).
import { expect } from 'chai';
import { RunResultsService, type RunResultsRepositories } from '../../../../shared/flaky-tests/services/run-results-service.js';
import { defaultDetectionConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import type { HealthStatus } from '../../../../shared/flaky-tests/domain/detection/types.js';
import type { FlakyRepo, TestCase, Upload } from '../../../../shared/flaky-tests/domain/model.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const at = (minutes: number) => new Date(Date.UTC(2026, 2, 2, 10, minutes));
const RUN = { id: 'run-1', createdAt: at(30) };

const flakyRepo = (quarantine = { enabled: true, autoQuarantine: true, releaseAfterCleanDays: 7 }): FlakyRepo => ({
  id: 'r1',
  orgId: 'org1',
  repo: REPO,
  quarantine,
  detection: defaultDetectionConfig(),
  ticketUrlTemplate: null,
  createdAt: at(0),
  updatedAt: at(0),
  version: 1,
  history: [],
  dueAt: at(0),
});

function upload(id: string, testRunId: string, failed: number): Upload {
  return {
    id,
    orgId: 'org1',
    repoId: 'r1',
    source: 'native',
    sha: 'a'.repeat(40),
    branch: 'trunk-merge/pr-1/run-1',
    branchClass: 'merge_queue',
    prNumber: null,
    variant: '',
    jobName: null,
    jobUrl: null,
    ciAttempt: null,
    testRunId,
    tree: 't'.repeat(40),
    receivedAt: at(40),
    state: 'complete',
    counts: { runs: 10, passed: 10 - failed, failed, skipped: 0, tests: 10, testsFailed: failed },
    excluded: false,
    files: [],
    warnings: [],
    expiresAt: at(9999),
  };
}

function test(
  name: string,
  opts: { createdAt?: Date; status: HealthStatus; changes?: { at: Date; from: HealthStatus; to: HealthStatus }[]; override?: 'always' | 'never' },
): TestCase {
  return {
    id: `r1:${name}`,
    orgId: 'org1',
    repoId: 'r1',
    testId: `id-${name}`,
    name,
    classname: 'pkg.Suite',
    parent: null,
    file: `${name}.py`,
    fileHint: null,
    variant: '',
    codeowners: [],
    createdAt: opts.createdAt ?? at(0),
    lastRunAt: at(40),
    status: { value: opts.status, reason: '', timestamp: at(0) },
    monitors: {},
    reevaluateAt: null,
    statusHistory: (opts.changes ?? []).map((c) => ({ ...c, reason: '', monitor: null })),
    quarantine: opts.override ? { override: opts.override, reason: 'r', actor: 'alice', at: at(0) } : null,
    quarantineHistory: [],
    ticket: null,
    version: 1,
  };
}

function service(repo: FlakyRepo | null, uploads: Upload[], tests: TestCase[]): RunResultsService {
  const store: RunResultsRepositories = {
    repos: { find: async () => repo },
    uploads: {
      linkedToRuns: async (ids) => uploads.filter((u) => ids.includes(u.testRunId!)),
      completeOfCommit: async () => {
        throw new Error('outcomesAt is tested on the store (test/e2e/verdicts.test.ts)');
      },
    },
    caseRuns: {
      failedIn: async () => tests.map((t) => ({ caseId: t.id, testId: t.testId })),
      outcomesIn: async () => {
        throw new Error('outcomesAt is tested on the store (test/e2e/verdicts.test.ts)');
      },
    },
    tests: { findByIds: async (ids) => tests.filter((t) => ids.includes(t.id)) },
  };
  return new RunResultsService({ store });
}

describe('RunResultsService', () => {
  it('sums the linked uploads and names each failed test with its status now and before the run', async () => {
    const tests = [
      // Flaky since before the run: it counts as known flaky.
      test('old_flake', { status: 'flaky', changes: [{ at: at(10), from: 'healthy', to: 'flaky' }] }),
      // Made flaky by this run's own failure (after its start): not known flaky for its decision.
      test('own_failure', { status: 'flaky', changes: [{ at: at(35), from: 'healthy', to: 'flaky' }] }),
      // First seen by this run.
      test('brand_new', { status: 'healthy', createdAt: at(31) }),
      test('pinned', { status: 'healthy', override: 'always' }),
    ];
    const results = await service(flakyRepo(), [upload('u1', 'run-1', 3), upload('u2', 'run-1', 1), upload('u3', 'run-2', 5)], tests).resultsOf('org1', REPO, [
      RUN,
    ]);
    const r = results.get('run-1')!;
    expect([r.uploads, r.runs, r.failed]).to.deep.equal([2, 20, 4]);
    const byName = Object.fromEntries(r.failedTests.map((t) => [t.name, t]));
    expect(r.failedTests.map((t) => t.name)).to.deep.equal(['brand_new', 'old_flake', 'own_failure', 'pinned']);
    expect(byName.old_flake).to.deep.include({ id: 'id-old_flake', status: 'flaky', quarantined: true, before: { flaky: true, quarantined: true } });
    expect(byName.own_failure).to.deep.include({ status: 'flaky', quarantined: true, before: { flaky: false, quarantined: false } });
    expect(byName.brand_new).to.deep.include({ status: 'new', quarantined: false, before: { flaky: false, quarantined: false } });
    expect(byName.pinned).to.deep.include({
      classname: 'pkg.Suite',
      file: 'pinned.py',
      status: 'healthy',
      quarantined: true,
      before: { flaky: false, quarantined: true },
    });
  });

  it('answers nothing for a run without linked uploads or a repository that never uploaded', async () => {
    expect((await service(flakyRepo(), [], []).resultsOf('org1', REPO, [RUN])).size).to.equal(0);
    expect((await service(null, [upload('u1', 'run-1', 1)], []).resultsOf('org1', REPO, [RUN])).size).to.equal(0);
    expect(await service(null, [], []).uploadsResults('org1', REPO)).to.equal(false);
    expect(await service(flakyRepo(), [], []).uploadsResults('org1', REPO)).to.equal(true);
  });
});
