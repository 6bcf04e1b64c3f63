// Records of the flaky-tests store as the contract suites write them: a complete, valid record
// with the fields a test does not care about filled in, and the ones it does given as overrides.
import { randomUUID } from 'node:crypto';
import { caseIdOf, type Upload } from '../../shared/flaky-tests/domain/model.js';
import type { SeenTest } from '../../shared/flaky-tests/store/test-case-repository.js';

export const T0 = new Date('2026-03-02T10:00:00Z');
export const LATER = new Date('2099-01-01T00:00:00Z');

export const anUpload = (over: Partial<Upload> = {}): Upload => ({
  id: randomUUID(),
  orgId: 'org1',
  repoId: 'r1',
  source: 'native',
  sha: 'a'.repeat(40),
  branch: 'main',
  branchClass: 'main',
  prNumber: null,
  variant: '',
  jobName: null,
  jobUrl: null,
  ciAttempt: null,
  testRunId: null,
  tree: null,
  receivedAt: T0,
  state: 'receiving',
  counts: { runs: 0, passed: 0, failed: 0, skipped: 0, tests: 0, testsFailed: 0 },
  excluded: false,
  files: [],
  warnings: [],
  expiresAt: LATER,
  ...over,
});

export const aSeenTest = (testId: string, over: Partial<SeenTest> = {}): SeenTest => ({
  caseId: caseIdOf('r1', testId),
  orgId: 'org1',
  repoId: 'r1',
  testId,
  name: testId,
  classname: null,
  parent: null,
  file: null,
  fileHint: null,
  variant: '',
  codeowners: null,
  firstRunAt: T0,
  lastRunAt: T0,
  expiresAt: LATER,
  lastEvidenceAt: null,
  ...over,
});
