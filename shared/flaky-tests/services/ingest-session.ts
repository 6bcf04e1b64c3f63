// Processing one upload (in the flaky-ingest job). Reports stream through the JUnit parser into
// batched test case run inserts, keyed by (upload id, index); the pure UploadAccumulator keeps the
// per-test counters. At finish the upload is checked for infrastructure failure, its counters,
// pass-on-retry detections and the affected tests' statuses are written, and the upload is marked
// complete last — so an attempt that dies mid-way leaves an unfinished upload, which the next
// attempt drops (IngestSession.discardUnfinished) and writes again.
import { EventLoopTurns } from '../../platform/runtime/event-loop-turns.js';
import { classifyBranch, type BranchClass } from '../domain/branch-class.js';
import { parseCodeowners } from '../domain/codeowners.js';
import { repoFullName } from '../domain/test-identity.js';
import { DAY_MS, mergeCommitOutcomes, type CommitOutcomes } from '../domain/detection/index.js';
import { UploadAccumulator, type AccumulatedRun, type TestTally } from '../domain/upload-accumulator.js';
import { detach } from '../domain/detach-string.js';
import { invalid } from '../../platform/errors.js';
import type { Logger } from '../../platform/logging.js';
import { isGzip, openReport, parseJUnit, type ByteSource, type JUnitIssue } from '../formats/junit/index.js';
import { type SeenRefresh, type SeenTest } from '../store/test-case-repository.js';
import type { DetectionService } from './detection-service.js';
import type { FlakySettings } from './flaky-settings.js';
import type { IngestRepositories } from './ingest-repositories.js';
import type { OrgRef } from './repo-resolver.js';
import type { TestRunLink } from './test-run-links.js';
import { caseIdOf, type FlakyRepo, type UploadFileSummary, type UploadIssue, type UploadMeta, type UploadResult } from '../domain/model.js';
import type { BucketUpload, CaseRunRow, CaseRunUpload } from '../store/upload-rows.js';
import { TestRows, type TestRowContext } from './test-rows.js';

const RUN_BATCH = 500;
/** Tests per write batch: each batch is one block of hour counters per hour and a few reads. */
const WRITE_BATCH = 500;
const MAX_ISSUES_PER_FILE = 20;
const MAX_CODEOWNERS_PROBLEMS = 10;

export interface IngestSessionDeps {
  store: IngestRepositories;
  detection: Pick<DetectionService, 'evaluate'>;
  settings: FlakySettings;
  logger: Logger;
  now: () => Date;
}

function toIssue(i: JUnitIssue): UploadIssue {
  const issue: UploadIssue = { level: i.level, code: i.code, message: detach(i.message) };
  if (i.line !== undefined) issue.line = i.line;
  return issue;
}

export class IngestSession {
  private readonly receivedAt: Date;
  private readonly branchClass: BranchClass;
  private readonly expiresAt: Date;
  private readonly accumulator: UploadAccumulator;
  private readonly files: UploadFileSummary[] = [];
  private readonly warnings: UploadIssue[] = [];
  /** A large report is parsed and stored in slices, so the process keeps answering meanwhile. */
  private readonly turns = new EventLoopTurns();
  private batch: CaseRunRow[] = [];
  private seq = 0;
  /** Each test's case id, built once: every run and write of the test uses the same string. */
  private readonly caseIds = new Map<string, string>();
  private readonly runUpload: CaseRunUpload;
  private readonly bucketUpload: BucketUpload;
  /** Decompressed report bytes the upload may still read (one budget for all its reports). */
  private reportBytesLeft: number;
  private readonly rowContext: TestRowContext;
  private readonly rows: TestRows;
  private state: 'open' | 'finished' | 'aborted' = 'open';

  constructor(
    private readonly deps: IngestSessionDeps,
    readonly uploadId: string,
    private readonly org: OrgRef,
    private readonly repo: FlakyRepo,
    readonly meta: UploadMeta,
    private readonly source: 'native' | 'bundle',
    receivedAt: Date,
    /** The merge-queue test run the commit is the test branch head of, if any. */
    readonly link: TestRunLink | null,
  ) {
    this.receivedAt = receivedAt;
    this.expiresAt = new Date(receivedAt.getTime() + deps.settings.retentionDays * DAY_MS);
    this.reportBytesLeft = deps.settings.maxReportBytes;
    this.accumulator = new UploadAccumulator({
      orgSlug: org.slug,
      repoFullName: repoFullName(meta.repo),
      variant: meta.variant,
      startedAt: meta.startedAt,
      receivedAt,
    });
    this.branchClass = classifyBranch({
      branch: meta.branch,
      prNumber: meta.prNumber,
      stableBranches: repo.detection.stableBranches,
      mergeQueuePatterns: repo.detection.mergeQueuePatterns,
      gitlabMergeRequestEventType: meta.gitlabMergeRequestEventType ?? null,
    });
    this.runUpload = {
      orgId: org.id,
      repoId: repo.id,
      uploadId,
      sha: meta.sha,
      branch: meta.branch,
      branchClass: this.branchClass,
      prNumber: meta.prNumber,
      expiresAt: this.expiresAt,
    };
    this.rowContext = {
      orgId: org.id,
      repoId: repo.id,
      uploadId,
      meta,
      branchClass: this.branchClass,
      expiresAt: this.expiresAt,
      retentionDays: deps.settings.retentionDays,
      codeowners: null,
    };
    this.rows = new TestRows(this.rowContext);
    this.bucketUpload = {
      repoId: repo.id,
      uploadId,
      branch: meta.branch,
      branchClass: this.branchClass,
      prNumber: meta.prNumber,
      retentionMs: deps.settings.retentionDays * DAY_MS,
    };
  }

  private caseIdOf(testId: string): string {
    let caseId = this.caseIds.get(testId);
    if (caseId === undefined) this.caseIds.set(testId, (caseId = caseIdOf(this.repo.id, testId)));
    return caseId;
  }

  /** Drops what an earlier, interrupted attempt at this upload wrote (nothing, usually). */
  static async discardUnfinished(store: IngestRepositories, uploadId: string): Promise<void> {
    await store.caseRuns.deleteByUpload(uploadId);
    await store.buckets.deleteByUpload(uploadId);
    await store.clusters.deleteByUpload(uploadId);
    await store.uploads.deleteUnfinished(uploadId);
  }

  /** Records the upload as being processed; call once before adding reports. */
  async start(): Promise<void> {
    await this.deps.store.uploads.insert({
      id: this.uploadId,
      orgId: this.org.id,
      repoId: this.repo.id,
      source: this.source,
      sha: this.meta.sha,
      branch: this.meta.branch,
      branchClass: this.branchClass,
      prNumber: this.meta.prNumber,
      variant: this.meta.variant,
      jobName: this.meta.jobName,
      jobUrl: this.meta.jobUrl,
      ciAttempt: this.meta.ciAttempt,
      testRunId: this.link?.testRunId ?? null,
      tree: this.link?.tree ?? null,
      receivedAt: this.receivedAt,
      state: 'receiving',
      counts: { runs: 0, passed: 0, failed: 0, skipped: 0, tests: 0, testsFailed: 0 },
      excluded: false,
      files: [],
      warnings: [],
      expiresAt: this.expiresAt,
    });
  }

  /** A CODEOWNERS file (GitHub or GitLab syntax): owners are matched on each test's file. */
  setCodeowners(text: string): void {
    const codeowners = parseCodeowners(text);
    this.rowContext.codeowners = codeowners;
    for (const p of codeowners.problems.slice(0, MAX_CODEOWNERS_PROBLEMS)) {
      this.warnings.push({ level: 'warning', code: 'codeowners', message: `CODEOWNERS line ${p.line}: ${p.message}`, line: p.line });
    }
  }

  addWarning(issue: UploadIssue): void {
    this.warnings.push(issue);
  }

  /** Streams one report (XML or gzip-compressed XML) into the store. Never throws for bad content. */
  async addReport(name: string, bytes: ByteSource): Promise<UploadFileSummary> {
    this.assertOpen();
    const summary: UploadFileSummary = { name, compressed: false, runs: 0, passed: 0, failed: 0, skipped: 0, warnings: [], errors: [] };
    this.files.push(summary);
    let dropped = 0;
    const sniffed = async function* (): AsyncGenerator<Uint8Array | string> {
      let first = true;
      for await (const chunk of bytes) {
        if (first && typeof chunk !== 'string') summary.compressed = isGzip(chunk);
        first = false;
        yield chunk;
      }
    };
    const budget = this.reportBytesLeft;
    let read = 0;
    const counted = async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
      for await (const b of source) {
        read += b.length;
        yield b;
      }
    };
    for await (const item of parseJUnit(counted(openReport(sniffed(), { maxBytes: budget })))) {
      if (item.kind === 'issue') {
        const list = item.level === 'error' ? summary.errors : summary.warnings;
        if (list.length < MAX_ISSUES_PER_FILE) list.push(toIssue(item));
        else dropped++;
        continue;
      }
      const run = this.accumulator.add(item);
      summary.runs++;
      summary[run.outcome]++;
      this.batch.push(this.caseRun(run));
      if (this.batch.length >= RUN_BATCH) await this.flushRuns();
      if (this.turns.turnDue()) await this.turns.giveTurn();
    }
    this.reportBytesLeft = Math.max(0, budget - read);
    if (dropped > 0) summary.warnings.push({ level: 'warning', code: 'issues-capped', message: `${dropped} more issues not shown` });
    await this.flushRuns();
    return summary;
  }

  private caseRun(run: AccumulatedRun): CaseRunRow {
    return {
      seq: this.seq++,
      caseId: this.caseIdOf(run.testId),
      attempt: run.attempt,
      outcome: run.outcome,
      durationMs: run.durationMs,
      at: run.at,
      failureMessage: run.failureMessage,
      failureSummary: run.failureSummary,
      failureKey: run.failureKey,
    };
  }

  private async flushRuns(): Promise<void> {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    await this.deps.store.caseRuns.insertBatch(this.runUpload, batch);
  }

  /**
   * Completes the upload. Throws a 400 `no_junit_results` when it holds no report, or when no
   * report yielded a result and at least one was not usable JUnit (so a CI step fails loudly on a
   * wrong path or format).
   */
  async finish(): Promise<UploadResult> {
    this.assertOpen();
    await this.flushRuns();
    const totals = this.accumulator.totals();
    const unusable = this.files.filter((f) => f.runs === 0 && f.errors.length > 0);
    if (totals.runs === 0 && this.files.length === 0) {
      await this.abort('no JUnit report');
      throw invalid('no_junit_results', 'no test results could be read from the upload: it holds no JUnit report', [
        { path: '/files', message: 'no JUnit report' },
      ]);
    }
    if (totals.runs === 0 && unusable.length > 0) {
      await this.abort('no usable JUnit report');
      throw invalid(
        'no_junit_results',
        `no test results could be read from the upload: ${unusable.map((f) => `${f.name}: ${f.errors[0]?.message ?? 'unusable'}`).join('; ')}`,
        unusable.map((f) => ({ path: `/files/${f.name}`, message: f.errors[0]?.message ?? 'not a JUnit report' })),
      );
    }
    this.state = 'finished';
    const store = this.deps.store;
    const infra = this.repo.detection.infrastructure;
    const { excluded, testsRun, testsFailed } = this.accumulator.isInfrastructureFailure(infra);
    if (excluded) {
      this.warnings.push({
        level: 'warning',
        code: 'infrastructure-failure',
        message: `${testsFailed} of ${testsRun} tests failed (more than ${Math.round(infra.threshold * 100)}%): the upload is stored but excluded from detection and failure rates`,
      });
    }
    // Uploads of one repository are processed one at a time (the flaky-ingest job is deduplicated
    // per repository), so no other evaluation is in flight: evaluations may skip writes that change
    // nothing. Compare-and-set on the tests' version still orders every write that happens.
    const all = this.accumulator.tests();
    const code = { sha: this.meta.sha, tree: this.link?.tree ?? null };
    const priorUploads = excluded ? [] : await store.uploads.includedForRetry(this.repo.id, code, this.uploadId);
    const earlier = await this.earlierOutcomes(priorUploads, all);
    let statusChanges = 0;
    for (let i = 0; i < all.length; i += WRITE_BATCH) {
      statusChanges += await this.storeChunk(i / WRITE_BATCH, all.slice(i, i + WRITE_BATCH), excluded, earlier);
      await this.turns.pace();
    }
    await store.uploads.finish(this.uploadId, { state: 'complete', counts: totals, excluded, files: this.files, warnings: this.warnings });
    this.deps.logger.info(
      { uploadId: this.uploadId, repoId: this.repo.id, runs: totals.runs, tests: totals.tests, excluded, statusChanges },
      'flaky-tests upload stored',
    );
    return { uploadId: this.uploadId, repoId: this.repo.id, counts: totals, excluded, files: this.files, warnings: this.warnings, statusChanges };
  }

  private async storeChunk(part: number, chunk: readonly TestTally[], excluded: boolean, earlier: ReadonlyMap<string, CommitOutcomes>): Promise<number> {
    const store = this.deps.store;
    const caseIds = chunk.map((t) => this.caseIdOf(t.testId));
    const evaluated = excluded ? [] : chunk.filter((t) => t.lastOutcome !== null);
    const detections = excluded ? [] : this.rows.retryDetections(evaluated, earlier, (testId) => this.caseIdOf(testId));
    // The newest evidence (failure or detection) the upload brings each test: it keeps the test
    // from counting as quiet (detection/quiet.ts). An excluded upload brings none.
    const evidence = new Map<string, Date>();
    if (!excluded) {
      chunk.forEach((t, i) => {
        const last = t.hours.reduce((m, h) => Math.max(m, h.lastFailureAt ?? -Infinity), -Infinity);
        if (Number.isFinite(last)) evidence.set(caseIds[i] as string, new Date(last));
      });
      for (const d of detections) {
        const known = evidence.get(d.caseId);
        if (!known || known < d.detectedAt) evidence.set(d.caseId, d.detectedAt);
      }
    }
    const known = new Map((await store.tests.findByIds(caseIds)).map((t) => [t.id, t]));
    const fresh: SeenTest[] = [];
    // What the upload says about known tests, where it differs enough to be worth a write.
    const refresh = new Map<string, SeenRefresh>();
    chunk.forEach((t, i) => {
      const caseId = caseIds[i] as string;
      const stored = known.get(caseId);
      const evidenceAt = evidence.get(caseId) ?? null;
      if (!stored) fresh.push(this.rows.seenTest(t, caseId, evidenceAt));
      else {
        const seen = this.rows.refreshFor(t, stored, evidenceAt);
        if (seen) refresh.set(caseId, seen);
      }
    });
    await store.tests.insertNew(fresh);
    if (!excluded) {
      await store.buckets.insert(
        this.bucketUpload,
        part,
        chunk.flatMap((t, i) => this.rows.bucketRows(t, caseIds[i] as string)),
      );
      await store.clusters.insert(chunk.flatMap((t, i) => this.rows.clusterDeltas(t, caseIds[i] as string)));
      await store.detections.record(detections);
    }
    const evaluatedIds = evaluated.map((t) => this.caseIdOf(t.testId));
    const changes = await this.deps.detection.evaluate(this.repo, evaluatedIds, this.deps.now(), { loaded: known, seen: refresh });
    // Tests not evaluated (skipped-only runs, or an excluded upload) still get fresher metadata.
    const evaluatedSet = new Set(evaluatedIds);
    await store.tests.refreshSeen([...refresh].filter(([id]) => !evaluatedSet.has(id)).map(([caseId, seen]) => ({ caseId, seen })));
    return changes;
  }

  /** Drops what was stored of an upload that could not be completed. */
  async abort(reason: string): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.batch = [];
    try {
      await this.deps.store.caseRuns.deleteByUpload(this.uploadId);
      await this.deps.store.uploads.finish(this.uploadId, {
        state: 'failed',
        counts: { ...this.accumulator.totals(), testsFailed: 0 },
        excluded: true,
        files: this.files,
        warnings: [...this.warnings, { level: 'error', code: 'aborted', message: reason }],
      });
    } catch (err) {
      this.deps.logger.warn({ uploadId: this.uploadId, err: (err as Error).message }, 'cleaning up an aborted upload failed');
    }
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error(`upload ${this.uploadId} is already ${this.state}`);
  }

  /** Outcomes of the tests in earlier included uploads of the same code (commit or test-branch tree), read once per upload. */
  private async earlierOutcomes(priorUploads: readonly string[], tests: readonly TestTally[]): Promise<Map<string, CommitOutcomes>> {
    const earlier = new Map<string, CommitOutcomes>();
    if (priorUploads.length === 0) return earlier;
    const caseIds = tests.filter((t) => t.lastOutcome !== null).map((t) => this.caseIdOf(t.testId));
    for (const p of await this.deps.store.buckets.outcomesIn(priorUploads, caseIds)) {
      const o: CommitOutcomes = { firstFailAt: p.firstFailureAt, firstPassAt: p.firstPassAt };
      earlier.set(p.caseId, mergeCommitOutcomes(earlier.get(p.caseId) ?? { firstFailAt: null, firstPassAt: null }, o));
    }
    return earlier;
  }
}
