// What one upload says, accumulated run by run (pure): each JUnit run gets its test id, the time
// it is filed at, its attempt number and its failure signature; per test only small counters are
// kept (per clock hour, per failure cluster and day), so memory grows with the number of distinct
// tests of the upload, never with the size of its reports or their messages.
import { failureSignature } from './failure-summary.js';
import { testId as computeTestId } from './test-identity.js';
import { DAY_MS, HOUR_MS, isInfrastructureFailure, runTime, type CommitOutcomes } from './detection/index.js';
import type { InfrastructureProtectionConfig } from './detection/config.js';
import type { ReportedRun, RunOutcome, UploadCounts } from './model.js';
import { detach } from './detach-string.js';

const MAX_FAILURE_MESSAGE = 4096;

export interface UploadContext {
  orgSlug: string;
  /** `host/owner/name`. */
  repoFullName: string;
  variant: string;
  /** When the CI step started (meta), for runs whose own time is implausible. */
  startedAt: Date | null;
  receivedAt: Date;
}

export interface HourTally {
  hour: number;
  passed: number;
  failed: number;
  skipped: number;
  firstFailureAt: number | null;
  lastFailureAt: number | null;
  firstPassAt: number | null;
  lastRunAt: number | null;
}

export interface ClusterTally {
  key: string;
  day: number;
  summary: string;
  count: number;
  lastAt: number;
}

export interface TestTally {
  testId: string;
  name: string;
  classname: string | null;
  parent: string | null;
  file: string | null;
  fileHint: string | null;
  runs: number;
  /** Outcome of the last passed/failed attempt, in arrival order. */
  lastOutcome: Exclude<RunOutcome, 'skipped'> | null;
  outcomes: CommitOutcomes;
  firstRunAt: number;
  lastRunAt: number;
  /** Usually one entry (arrays, not maps: an upload may hold a million tests). */
  hours: HourTally[];
  /** Null until the test fails (most never do). */
  clusters: ClusterTally[] | null;
}

/** One run as it is recorded. */
export interface AccumulatedRun {
  testId: string;
  /** 0-based attempt of this test within the upload (retries in the report, attempt files). */
  attempt: number;
  outcome: RunOutcome;
  durationMs: number | null;
  at: number;
  /** First lines of the failure (message, else text), at most 4 KiB; null unless failed. */
  failureMessage: string | null;
  failureSummary: string | null;
  failureKey: string | null;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max);
}

/** The path a test is owned by (CODEOWNERS): its file; Bazel `//pkg/path:target` owns like `pkg/path`. */
export function ownedPath(t: Pick<TestTally, 'file' | 'fileHint' | 'parent' | 'name'>): string | null {
  if (t.file) return t.file;
  if (t.fileHint) return t.fileHint;
  const label = /^\/\/([^:]+)(?::.*)?$/.exec(t.parent ?? '') ?? /^\/\/([^:]+)(?::.*)?$/.exec(t.name);
  return label?.[1] ?? null;
}

export class UploadAccumulator {
  private readonly byId = new Map<string, TestTally>();
  private readonly sums = { runs: 0, passed: 0, failed: 0, skipped: 0 };

  constructor(private readonly context: UploadContext) {}

  add(run: ReportedRun): AccumulatedRun {
    const id = computeTestId({
      orgUrlSlug: this.context.orgSlug,
      repoFullName: this.context.repoFullName,
      file: run.file,
      classname: run.classname,
      parent: run.parent,
      name: run.name,
      infoId: run.idAttribute,
      variant: this.context.variant,
    });
    const at = runTime(run.startedAt, this.context.startedAt, this.context.receivedAt).getTime();
    const test = this.tally(id, run, at);
    const attempt = test.runs++;
    test.firstRunAt = Math.min(test.firstRunAt, at);
    test.lastRunAt = Math.max(test.lastRunAt, at);
    const hour = this.hourOf(test, at);
    hour[run.outcome]++;
    this.sums.runs++;
    this.sums[run.outcome]++;

    // The tally's id, not this run's equal copy: later lookups of one string reuse its hash.
    const recorded: AccumulatedRun = {
      testId: test.testId,
      attempt,
      outcome: run.outcome,
      durationMs: run.durationMs,
      at,
      failureMessage: null,
      failureSummary: null,
      failureKey: null,
    };
    if (run.outcome !== 'skipped') {
      test.lastOutcome = run.outcome;
      hour.lastRunAt = Math.max(hour.lastRunAt ?? at, at);
    }
    if (run.outcome === 'passed') {
      // The tally is this accumulator's own: its outcomes move forward in place.
      test.outcomes.firstPassAt = Math.min(test.outcomes.firstPassAt ?? at, at);
      hour.firstPassAt = Math.min(hour.firstPassAt ?? at, at);
    } else if (run.outcome === 'failed') {
      test.outcomes.firstFailAt = Math.min(test.outcomes.firstFailAt ?? at, at);
      hour.firstFailureAt = Math.min(hour.firstFailureAt ?? at, at);
      hour.lastFailureAt = Math.max(hour.lastFailureAt ?? at, at);
      const d = run.detail;
      const text = d?.text ?? d?.stackTrace ?? null;
      const raw = d?.message || text || null;
      recorded.failureMessage = raw ? detach(clip(raw, MAX_FAILURE_MESSAGE)) : null;
      const sig = failureSignature({ message: d?.message ?? null, text, type: d?.type ?? null });
      if (sig) {
        recorded.failureSummary = detach(sig.summary);
        recorded.failureKey = sig.key;
        this.addToCluster(test, sig.key, recorded.failureSummary, at);
      }
    }
    return recorded;
  }

  /** Every test of the upload, in order of first appearance. */
  tests(): TestTally[] {
    return [...this.byId.values()];
  }

  totals(): UploadCounts {
    let testsFailed = 0;
    for (const t of this.byId.values()) if (t.lastOutcome === 'failed') testsFailed++;
    return { ...this.sums, tests: this.byId.size, testsFailed };
  }

  /** Infrastructure-failure protection: whether the upload is kept out of detection. */
  isInfrastructureFailure(config: InfrastructureProtectionConfig): { excluded: boolean; testsRun: number; testsFailed: number } {
    let testsRun = 0;
    let testsFailed = 0;
    for (const t of this.byId.values()) {
      if (t.lastOutcome !== null) testsRun++;
      if (t.lastOutcome === 'failed') testsFailed++;
    }
    return { excluded: isInfrastructureFailure({ testsRun, testsFailed }, config), testsRun, testsFailed };
  }

  private tally(id: string, run: ReportedRun, at: number): TestTally {
    let test = this.byId.get(id);
    if (!test) {
      test = {
        testId: id,
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
      this.byId.set(id, test);
    }
    return test;
  }

  private hourOf(test: TestTally, at: number): HourTally {
    const key = Math.floor(at / HOUR_MS) * HOUR_MS;
    let hour = test.hours.find((h) => h.hour === key);
    if (!hour) {
      hour = { hour: key, passed: 0, failed: 0, skipped: 0, firstFailureAt: null, lastFailureAt: null, firstPassAt: null, lastRunAt: null };
      test.hours.push(hour);
    }
    return hour;
  }

  private addToCluster(test: TestTally, key: string, summary: string, at: number): void {
    const day = Math.floor(at / DAY_MS) * DAY_MS;
    test.clusters ??= [];
    const c = test.clusters.find((x) => x.key === key && x.day === day);
    if (!c) {
      test.clusters.push({ key, day, summary, count: 1, lastAt: at });
      return;
    }
    c.count++;
    if (at >= c.lastAt) {
      c.lastAt = at;
      c.summary = summary;
    }
  }
}
