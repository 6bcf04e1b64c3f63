// One upload being received. Reports stream through the JUnit parser into batched run inserts;
// per test, only small counters are kept (per hour, per failure cluster) — memory grows with the
// number of distinct tests in the upload, never with the size of the reports or their messages.
// At finish, the upload is checked for infrastructure failure, and unless excluded its counters,
// pass-on-retry detections and the affected tests' statuses are written.
import { randomUUID } from 'node:crypto';
import { classifyBranch, type BranchClass } from '../domain/branch-class.js';
import { parseCodeowners, ownersOf, type Codeowners } from '../domain/codeowners.js';
import { failureSignature } from '../domain/failure-summary.js';
import { repoFullName, testId as computeTestId } from '../domain/test-identity.js';
import {
  DAY_MS,
  hourStart,
  isInfrastructureFailure,
  mergeCommitOutcomes,
  retryDetectedAt,
  runTime,
  type CommitOutcomes,
} from '../domain/detection/index.js';
import { invalid } from '../../errors.js';
import type { Logger } from '../../logging.js';
import { isGzip, openReport, parseJUnit, type ByteSource, type JUnitIssue, type JUnitOutcome, type JUnitRun } from '../formats/junit/index.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { FlakyRepo } from '../store/repo-settings-repository.js';
import type { StoredRun } from '../store/run-repository.js';
import { caseIdOf, type SeenRefresh, type SeenTest, type TestCase } from '../store/test-case-repository.js';
import type { BucketDelta } from '../store/hour-bucket-repository.js';
import type { ClusterDelta } from '../store/failure-cluster-repository.js';
import type { DetectionWrite } from '../store/retry-detection-repository.js';
import type { UploadCounts, UploadFileSummary, UploadIssue } from '../store/upload-repository.js';
import type { DetectionService } from './detection-service.js';
import type { FlakySettings } from './flaky-settings.js';
import type { UploadMeta } from './upload-meta.js';
import type { OrgRef } from './repo-resolver.js';
import type { KeyedMutex } from './keyed-mutex.js';
import { detach } from './detach-string.js';

const RUN_BATCH = 500;
/** Tests per write batch: small, because the embedded engine tests `$in` lists per candidate. */
const WRITE_BATCH = 100;
/**
 * lastRunAt (and so the inactivity expiry) of a known test is rewritten at most this often, so a
 * test passing on every upload costs no write; the expiry carries the same slack, so an idle
 * test lives at least the retention period after its last run.
 */
const SEEN_REFRESH_MS = 7 * DAY_MS;
const MAX_ISSUES_PER_FILE = 20;
const MAX_FAILURE_MESSAGE = 4096;
const MAX_CODEOWNERS_PROBLEMS = 10;

interface HourAgg {
  hour: number;
  passed: number;
  failed: number;
  skipped: number;
  firstFailureAt: number | null;
  lastFailureAt: number | null;
  firstPassAt: number | null;
  lastRunAt: number | null;
}

interface ClusterAgg {
  key: string;
  day: number;
  summary: string;
  count: number;
  lastAt: number;
}

interface TestAgg {
  testId: string;
  caseId: string;
  name: string;
  classname: string | null;
  parent: string | null;
  file: string | null;
  fileHint: string | null;
  runs: number;
  /** Outcome of the last passed/failed attempt, in arrival order. */
  lastOutcome: Exclude<JUnitOutcome, 'skipped'> | null;
  outcomes: CommitOutcomes;
  firstRunAt: number;
  lastRunAt: number;
  /** Usually one entry (arrays, not maps: an upload may hold a million tests). */
  hours: HourAgg[];
  clusters: ClusterAgg[] | null;
}

export interface UploadResult {
  uploadId: string;
  repoId: string;
  counts: UploadCounts;
  /** Excluded from detection and rates by infrastructure-failure protection. */
  excluded: boolean;
  files: UploadFileSummary[];
  warnings: UploadIssue[];
  /** Tests whose status changed because of this upload. */
  statusChanges: number;
}

export interface IngestSessionDeps {
  store: FlakyStore;
  /** Serialises the evidence-and-evaluation phase per repository. */
  repoLock: KeyedMutex;
  detection: DetectionService;
  settings: FlakySettings;
  logger: Logger;
  now: () => Date;
}

function toIssue(i: JUnitIssue): UploadIssue {
  const issue: UploadIssue = { level: i.level, code: i.code, message: detach(i.message) };
  if (i.line !== undefined) issue.line = i.line;
  return issue;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max);
}

/** Bazel targets have no file: `//pkg/path:target` owns like `pkg/path`. */
function ownedPath(agg: TestAgg): string | null {
  if (agg.file) return agg.file;
  if (agg.fileHint) return agg.fileHint;
  const label = /^\/\/([^:]+)(?::.*)?$/.exec(agg.parent ?? '') ?? /^\/\/([^:]+)(?::.*)?$/.exec(agg.name);
  return label?.[1] ?? null;
}

export class IngestSession {
  readonly uploadId = randomUUID();
  private readonly receivedAt: Date;
  private readonly branchClass: BranchClass;
  private readonly expiresAt: Date;
  private readonly fullName: string;
  private readonly tests = new Map<string, TestAgg>();
  private readonly files: UploadFileSummary[] = [];
  private readonly warnings: UploadIssue[] = [];
  private readonly totals = { runs: 0, passed: 0, failed: 0, skipped: 0 };
  private batch: StoredRun[] = [];
  private seq = 0;
  /** Numbers the counter documents this upload writes (short, unique ids). */
  private docSeq = 0;
  private codeowners: Codeowners | null = null;
  private state: 'open' | 'finished' | 'aborted' = 'open';

  constructor(
    private readonly deps: IngestSessionDeps,
    private readonly org: OrgRef,
    private readonly repo: FlakyRepo,
    private readonly meta: UploadMeta,
    private readonly source: 'native' | 'bundle',
  ) {
    this.receivedAt = deps.now();
    this.expiresAt = new Date(this.receivedAt.getTime() + deps.settings.retentionDays * DAY_MS);
    this.fullName = repoFullName(meta.repo);
    this.branchClass = classifyBranch({
      branch: meta.branch,
      prNumber: meta.prNumber,
      stableBranches: repo.detection.stableBranches,
      mergeQueuePatterns: repo.detection.mergeQueuePatterns,
      gitlabMergeRequestEventType: meta.gitlabMergeRequestEventType ?? null,
    });
  }

  /** Records the upload as being received; call once before adding reports. */
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
    this.codeowners = parseCodeowners(text);
    for (const p of this.codeowners.problems.slice(0, MAX_CODEOWNERS_PROBLEMS)) {
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
    for await (const item of parseJUnit(openReport(sniffed(), { maxBytes: this.deps.settings.maxReportBytes }))) {
      if (item.kind === 'issue') {
        const list = item.level === 'error' ? summary.errors : summary.warnings;
        if (list.length < MAX_ISSUES_PER_FILE) list.push(toIssue(item));
        else dropped++;
        continue;
      }
      this.addRun(item, summary);
      if (this.batch.length >= RUN_BATCH) await this.flushRuns();
    }
    if (dropped > 0) summary.warnings.push({ level: 'warning', code: 'issues-capped', message: `${dropped} more issues not shown` });
    await this.flushRuns();
    return summary;
  }

  private addRun(run: JUnitRun, summary: UploadFileSummary): void {
    const id = computeTestId({
      orgUrlSlug: this.org.slug,
      repoFullName: this.fullName,
      file: run.file,
      classname: run.classname,
      parent: run.parent,
      name: run.name,
      infoId: run.idAttribute,
      variant: this.meta.variant,
    });
    const at = runTime(run.startedAt, this.meta.startedAt, this.receivedAt).getTime();
    let agg = this.tests.get(id);
    if (!agg) {
      agg = {
        testId: id,
        caseId: caseIdOf(this.repo.id, id),
        name: detach(run.name),
        classname: detach(run.classname),
        parent: run.parent === '' ? null : detach(run.parent),
        file: detach(run.file),
        fileHint: detach(run.fileHint),
        runs: 0,
        lastOutcome: null,
        outcomes: { firstFailAt: null, firstPassAt: null },
        firstRunAt: at,
        lastRunAt: at,
        hours: [],
        clusters: null,
      };
      this.tests.set(id, agg);
    }
    const attempt = agg.runs++;
    agg.firstRunAt = Math.min(agg.firstRunAt, at);
    agg.lastRunAt = Math.max(agg.lastRunAt, at);
    const hourKey = hourStart(at).getTime();
    let hour = agg.hours.find((h) => h.hour === hourKey);
    if (!hour) {
      hour = { hour: hourKey, passed: 0, failed: 0, skipped: 0, firstFailureAt: null, lastFailureAt: null, firstPassAt: null, lastRunAt: null };
      agg.hours.push(hour);
    }
    hour[run.outcome]++;
    summary.runs++;
    summary[run.outcome]++;
    this.totals.runs++;
    this.totals[run.outcome]++;

    let failureMessage: string | null = null;
    let failureSummary: string | null = null;
    let failureKey: string | null = null;
    if (run.outcome !== 'skipped') {
      agg.lastOutcome = run.outcome;
      hour.lastRunAt = Math.max(hour.lastRunAt ?? at, at);
    }
    if (run.outcome === 'passed') {
      agg.outcomes = mergeCommitOutcomes(agg.outcomes, { firstFailAt: null, firstPassAt: at });
      hour.firstPassAt = Math.min(hour.firstPassAt ?? at, at);
    } else if (run.outcome === 'failed') {
      agg.outcomes = mergeCommitOutcomes(agg.outcomes, { firstFailAt: at, firstPassAt: null });
      hour.firstFailureAt = Math.min(hour.firstFailureAt ?? at, at);
      hour.lastFailureAt = Math.max(hour.lastFailureAt ?? at, at);
      const d = run.detail;
      const text = d?.text ?? d?.stackTrace ?? null;
      const raw = d?.message || text || null;
      failureMessage = raw ? detach(clip(raw, MAX_FAILURE_MESSAGE)) : null;
      const sig = failureSignature({ message: d?.message ?? null, text, type: d?.type ?? null });
      if (sig) {
        failureSummary = detach(sig.summary);
        failureKey = sig.key;
        const day = Math.floor(at / DAY_MS) * DAY_MS;
        agg.clusters ??= [];
        const c = agg.clusters.find((x) => x.key === sig.key && x.day === day);
        if (c) {
          c.count++;
          if (at >= c.lastAt) {
            c.lastAt = at;
            c.summary = failureSummary ?? sig.summary;
          }
        } else {
          agg.clusters.push({ key: sig.key, day, summary: failureSummary ?? sig.summary, count: 1, lastAt: at });
        }
      }
    }

    this.batch.push({
      id: `${this.uploadId}:${this.seq++}`,
      orgId: this.org.id,
      repoId: this.repo.id,
      caseId: agg.caseId,
      testId: id,
      uploadId: this.uploadId,
      sha: this.meta.sha,
      branch: this.meta.branch,
      branchClass: this.branchClass,
      prNumber: this.meta.prNumber,
      attempt,
      outcome: run.outcome,
      durationMs: run.durationMs,
      at: new Date(at),
      failureMessage,
      failureSummary,
      failureKey,
      expiresAt: this.expiresAt,
    });
  }

  private async flushRuns(): Promise<void> {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    await this.deps.store.runs.insertMany(batch);
  }

  /**
   * Completes the upload. Throws a 400 when no report yielded a result and at least one was not
   * usable JUnit (so a CI step fails loudly on a wrong path or format).
   */
  async finish(): Promise<UploadResult> {
    this.assertOpen();
    await this.flushRuns();
    const unusable = this.files.filter((f) => f.runs === 0 && f.errors.length > 0);
    if (this.totals.runs === 0 && this.files.length === 0) {
      await this.abort('no JUnit report');
      throw invalid('no_junit_results', 'no test results could be read from the upload: it holds no JUnit report', [{ path: '/files', message: 'no JUnit report' }]);
    }
    if (this.totals.runs === 0 && unusable.length > 0) {
      await this.abort('no usable JUnit report');
      throw invalid(
        'no_junit_results',
        `no test results could be read from the upload: ${unusable.map((f) => `${f.name}: ${f.errors[0]?.message ?? 'unusable'}`).join('; ')}`,
        unusable.map((f) => ({ path: `/files/${f.name}`, message: f.errors[0]?.message ?? 'not a JUnit report' })),
      );
    }
    this.state = 'finished';
    const store = this.deps.store;
    const all = [...this.tests.values()];
    const testsRun = all.filter((t) => t.lastOutcome !== null).length;
    const testsFailed = all.filter((t) => t.lastOutcome === 'failed').length;
    const counts: UploadCounts = { ...this.totals, tests: all.length, testsFailed };
    const excluded = isInfrastructureFailure({ testsRun, testsFailed }, this.repo.detection.infrastructure);
    if (excluded) {
      const infra = this.repo.detection.infrastructure;
      this.warnings.push({
        level: 'warning',
        code: 'infrastructure-failure',
        message: `${testsFailed} of ${testsRun} tests failed (more than ${Math.round(infra.threshold * 100)}%): the upload is stored but excluded from detection and failure rates`,
      });
    }
    // Decided before any evidence is written: from now on this upload's runs count (or not) for a
    // concurrent upload of the same commit looking for pass-on-retry pairs.
    await store.uploads.finish(this.uploadId, { state: 'complete', counts, excluded, files: this.files, warnings: this.warnings });
    // Per chunk: read the known tests, create the new ones, write this upload's evidence, then
    // evaluate. Uploads to one repository take turns here (per process): evaluations skip writes
    // that change nothing, which is only safe when no other evaluation is in flight. Across
    // processes, compare-and-set on the tests' version still orders the writes that happen.
    const statusChanges = await this.deps.repoLock.run(this.repo.id, async () => {
      // Earlier uploads of this commit (usually none: then nothing needs reading for pass-on-retry).
      const priorUploads = excluded ? [] : await store.uploads.includedForCommit(this.repo.id, this.meta.sha, this.uploadId);
      let changes = 0;
      for (let i = 0; i < all.length; i += WRITE_BATCH) changes += await this.storeChunk(all.slice(i, i + WRITE_BATCH), excluded, priorUploads);
      return changes;
    });
    this.deps.logger.info(
      { uploadId: this.uploadId, repoId: this.repo.id, runs: counts.runs, tests: counts.tests, excluded, statusChanges },
      'flaky-tests upload stored',
    );
    return { uploadId: this.uploadId, repoId: this.repo.id, counts, excluded, files: this.files, warnings: this.warnings, statusChanges };
  }

  private async storeChunk(chunk: readonly TestAgg[], excluded: boolean, priorUploads: readonly string[]): Promise<number> {
    const store = this.deps.store;
    const known = new Map((await store.tests.findByIds(chunk.map((t) => t.caseId))).map((t) => [t.id, t]));
    await store.tests.insertNew(chunk.filter((t) => !known.has(t.caseId)).map((t) => this.seenTest(t)));
    const evaluated = excluded ? [] : chunk.filter((t) => t.lastOutcome !== null);
    if (!excluded) {
      await store.buckets.insert(chunk.flatMap((t) => this.bucketDeltas(t)));
      await store.clusters.insert(chunk.flatMap((t) => this.clusterDeltas(t)));
      await store.detections.record(await this.retryDetections(evaluated, priorUploads));
    }
    // What the upload says about known tests, where it differs enough to be worth a write.
    const refresh = new Map<string, SeenRefresh>();
    for (const t of chunk) {
      const stored = known.get(t.caseId);
      const seen = this.seenRefresh(t);
      if (stored && this.needsRefresh(stored, seen)) refresh.set(t.caseId, seen);
    }
    const changes = await this.deps.detection.evaluate(
      this.repo,
      evaluated.map((t) => t.caseId),
      this.deps.now(),
      { loaded: known, seen: refresh },
    );
    // Tests not evaluated (skipped-only runs, or an excluded upload) still get fresher metadata.
    const evaluatedIds = new Set(evaluated.map((t) => t.caseId));
    await store.tests.refreshSeen([...refresh].filter(([id]) => !evaluatedIds.has(id)).map(([caseId, seen]) => ({ caseId, seen })));
    return changes;
  }

  /** Drops what was stored of an upload that could not be completed. */
  async abort(reason: string): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.batch = [];
    try {
      await this.deps.store.runs.deleteByUpload(this.uploadId);
      await this.deps.store.uploads.finish(this.uploadId, {
        state: 'failed',
        counts: { ...this.totals, tests: this.tests.size, testsFailed: 0 },
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

  private seenTest(t: TestAgg): SeenTest {
    let codeowners: string[] | null = null;
    if (this.codeowners) {
      const path = ownedPath(t);
      codeowners = path ? ownersOf(this.codeowners, path) : [];
    }
    return {
      caseId: t.caseId,
      orgId: this.org.id,
      repoId: this.repo.id,
      testId: t.testId,
      name: t.name,
      classname: t.classname,
      parent: t.parent,
      file: t.file,
      fileHint: t.fileHint,
      variant: this.meta.variant,
      codeowners,
      firstRunAt: new Date(t.firstRunAt),
      lastRunAt: new Date(t.lastRunAt),
      expiresAt: new Date(t.lastRunAt + this.deps.settings.retentionDays * DAY_MS + SEEN_REFRESH_MS),
    };
  }

  private seenRefresh(t: TestAgg): SeenRefresh {
    const s = this.seenTest(t);
    return { codeowners: s.codeowners, fileHint: s.fileHint, lastRunAt: s.lastRunAt, expiresAt: s.expiresAt };
  }

  private needsRefresh(stored: TestCase, seen: SeenRefresh): boolean {
    if (seen.codeowners && seen.codeowners.join('\n') !== stored.codeowners.join('\n')) return true;
    if (seen.fileHint !== null && seen.fileHint !== stored.fileHint) return true;
    return seen.lastRunAt.getTime() - stored.lastRunAt.getTime() > SEEN_REFRESH_MS;
  }

  private bucketDeltas(t: TestAgg): BucketDelta[] {
    const failedPrs = this.meta.prNumber !== null ? [this.meta.prNumber] : [];
    return t.hours.map((h) => ({
      id: `${this.uploadId}:b${this.docSeq++}`,
      repoId: this.repo.id,
      caseId: t.caseId,
      uploadId: this.uploadId,
      hour: new Date(h.hour),
      branch: this.meta.branch,
      branchClass: this.branchClass,
      passed: h.passed,
      failed: h.failed,
      skipped: h.skipped,
      firstFailureAt: h.firstFailureAt === null ? null : new Date(h.firstFailureAt),
      lastFailureAt: h.lastFailureAt === null ? null : new Date(h.lastFailureAt),
      lastRunAt: h.lastRunAt === null ? null : new Date(h.lastRunAt),
      firstPassAt: h.firstPassAt === null ? null : new Date(h.firstPassAt),
      failedPrs: h.failed > 0 ? failedPrs : [],
      expiresAt: new Date(h.hour + this.deps.settings.retentionDays * DAY_MS),
    }));
  }

  private clusterDeltas(t: TestAgg): ClusterDelta[] {
    return (t.clusters ?? []).map((c) => ({
      id: `${this.uploadId}:c${this.docSeq++}`,
      repoId: this.repo.id,
      caseId: t.caseId,
      uploadId: this.uploadId,
      key: c.key,
      day: new Date(c.day),
      summary: c.summary,
      count: c.count,
      lastAt: new Date(c.lastAt),
      expiresAt: new Date(c.day + this.deps.settings.retentionDays * DAY_MS),
    }));
  }

  /** Pass-on-retry: this upload's outcomes merged with earlier included uploads on the same commit. */
  private async retryDetections(tests: readonly TestAgg[], priorUploads: readonly string[]): Promise<DetectionWrite[]> {
    if (tests.length === 0) return [];
    const earlier = new Map<string, CommitOutcomes>();
    const prior = await this.deps.store.buckets.outcomesIn(
      priorUploads,
      tests.map((t) => t.caseId),
    );
    for (const p of prior) {
      const o: CommitOutcomes = { firstFailAt: p.firstFailureAt?.getTime() ?? null, firstPassAt: p.firstPassAt?.getTime() ?? null };
      earlier.set(p.caseId, mergeCommitOutcomes(earlier.get(p.caseId) ?? { firstFailAt: null, firstPassAt: null }, o));
    }
    const out: DetectionWrite[] = [];
    for (const t of tests) {
      const merged = mergeCommitOutcomes(t.outcomes, earlier.get(t.caseId) ?? { firstFailAt: null, firstPassAt: null });
      const detectedAt = retryDetectedAt(merged);
      if (detectedAt === null) continue;
      out.push({
        repoId: this.repo.id,
        caseId: t.caseId,
        sha: this.meta.sha,
        branch: this.meta.branch,
        branchClass: this.branchClass,
        prNumber: this.meta.prNumber,
        detectedAt: new Date(detectedAt),
        expiresAt: this.expiresAt,
      });
    }
    return out;
  }
}
