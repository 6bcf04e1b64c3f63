// Runs the pure monitors (shared/flaky-tests/domain/detection) over stored evidence and saves the
// result with compare-and-set. Callers:
//  - ingest (the flaky-ingest job), for exactly the tests an upload touched (bounded work per upload);
//  - the flaky-refresh job, for the tests whose `reevaluateAt` has passed (a pass-on-retry
//    recovery, a failure leaving a window…), so statuses change with time; reads never write;
//  - a configuration change, for every test of the repository.
import { EventLoopTurns } from '../../platform/runtime/event-loop-turns.js';
import {
  evaluateHealth,
  isQuiet,
  lastEvidenceIn,
  lookbackHours,
  sameHealth,
  DAY_MS,
  HOUR_MS,
  type StatusChange,
  type TestHealth,
} from '../domain/detection/index.js';
import type { FlakyStore } from '../store/flaky-store.js';
import { NEVER_DUE } from '../store/repo-settings-repository.js';
import type { HealthWrite, SeenRefresh } from '../store/test-case-repository.js';
import { detectionEvents } from '../events/test-events.js';
import type { FlakyRepo, TestCase } from '../domain/model.js';

/** Tests per batch (the reads of one batch are a few queries). */
const CHUNK = 500;
const MAX_CAS_ROUNDS = 5;
/** refreshDue never loops forever, whatever the data says. */
/** Repositories refreshed per flaky-refresh run (the next run takes the rest). */
const MAX_REPOS_PER_REFRESH = 1000;
const MAX_REFRESH_ROUNDS = 1000;
/** Time-driven changes replayed per test and evaluation (each moves time strictly forward). */
const MAX_REPLAY_STEPS = 100;

export class DetectionService {
  constructor(private readonly deps: { store: FlakyStore }) {}

  /**
   * Re-evaluates these tests at `now`; returns how many changed status. `loaded` may hand in test
   * documents read before the evidence was written (compare-and-set catches anything newer);
   * `seen` adds what an upload says about the tests to the same write (and forces one). Tests
   * whose stored state would not change are not written.
   */
  async evaluate(
    repo: FlakyRepo,
    caseIds: readonly string[],
    now: Date,
    opts: { loaded?: ReadonlyMap<string, TestCase>; seen?: ReadonlyMap<string, SeenRefresh> } = {},
  ): Promise<number> {
    let changed = 0;
    const turns = new EventLoopTurns();
    for (let i = 0; i < caseIds.length; i += CHUNK) {
      await turns.pace();
      let pending = caseIds.slice(i, i + CHUNK);
      for (let round = 0; round < MAX_CAS_ROUNDS && pending.length > 0; round++) {
        const given = round === 0 && opts.loaded ? pending.map((id) => opts.loaded?.get(id)).filter((t): t is TestCase => t !== undefined) : [];
        const missing = pending.filter((id) => round > 0 || !opts.loaded?.has(id));
        const all = [...given, ...(await this.deps.store.tests.findByIds(missing))];
        // Quiet tests cannot change (detection/quiet.ts): only what the upload saw is stored.
        const quiet = all.filter((t) => isQuiet(repo.detection, healthOf(t), newest(t.lastEvidenceAt, opts.seen?.get(t.id)?.lastEvidenceAt ?? null), now));
        const quietIds = new Set(quiet.map((t) => t.id));
        await this.deps.store.tests.refreshSeen(
          quiet.flatMap((t) => (opts.seen?.has(t.id) ? [{ caseId: t.id, seen: opts.seen.get(t.id) as SeenRefresh }] : [])),
        );
        const tests = quietIds.size === 0 ? all : all.filter((t) => !quietIds.has(t.id));
        const byId = new Map(tests.map((t) => [t.id, t]));
        const writes = (await this.compute(repo, tests, now)).filter((w) => {
          w.seen = opts.seen?.get(w.caseId);
          // Nothing to store: the common case of a healthy test that passed again.
          const t = byId.get(w.caseId) as TestCase;
          return w.seen !== undefined || w.changes.length > 0 || w.evidenceAt !== undefined || !sameHealth(healthOf(t), w.health);
        });
        // A status change's events go into the test's outbox with the change itself.
        for (const w of writes) if (w.changes.length > 0) w.events = detectionEvents(repo, byId.get(w.caseId) as TestCase, w);
        const lost = new Set(await this.deps.store.tests.saveHealth(writes));
        changed += writes.filter((w) => w.changes.length > 0 && !lost.has(w.caseId)).length;
        const due = writes.reduce((m, w) => (w.health.reevaluateAt && !lost.has(w.caseId) ? Math.min(m, w.health.reevaluateAt.getTime()) : m), Infinity);
        if (Number.isFinite(due)) await this.deps.store.repos.lowerDueAt(repo.id, new Date(due));
        pending = [...lost];
      }
    }
    return changed;
  }

  /** Brings every test of the repository whose status changes by time alone up to `now`. */
  async refreshDue(repo: FlakyRepo, now: Date): Promise<number> {
    // The repository's due mark says whether anything can be due; usually nothing is.
    if (repo.dueAt.getTime() > now.getTime()) return 0;
    let changed = 0;
    for (let round = 0; round < MAX_REFRESH_ROUNDS; round++) {
      const due = await this.deps.store.tests.findDue(repo.id, now, CHUNK);
      if (due.length === 0) break;
      changed += await this.evaluate(
        repo,
        due.map((t) => t.id),
        now,
      );
    }
    const next = await this.deps.store.tests.earliestDue(repo.id);
    await this.deps.store.repos.raiseDueAt(repo.id, repo.dueAt, next ?? NEVER_DUE);
    return changed;
  }

  /** Brings every repository with a due test up to `now` (the flaky-refresh job). */
  async refreshAllDue(now: Date): Promise<number> {
    let changed = 0;
    for (const repo of await this.deps.store.repos.dueBy(now, MAX_REPOS_PER_REFRESH)) changed += await this.refreshDue(repo, now);
    return changed;
  }

  private async compute(repo: FlakyRepo, tests: readonly TestCase[], now: Date): Promise<HealthWrite[]> {
    if (tests.length === 0) return [];
    const config = repo.detection;
    const ids = tests.map((t) => t.id);
    // A test whose status should have changed earlier is replayed from that moment, so the
    // change gets its exact time and evidence (as if evaluated then).
    const start = tests.reduce((m, t) => Math.min(m, t.reevaluateAt ? t.reevaluateAt.getTime() : m), now.getTime());
    const [buckets, detections] = await Promise.all([
      this.deps.store.buckets.forCases(ids, new Date(start - lookbackHours(config) * HOUR_MS), now),
      this.deps.store.detections.forCases(ids, new Date(start - config.passOnRetry.recoveryDays * DAY_MS)),
    ]);
    return tests.map((t) => {
      const evidence = { buckets: buckets.get(t.id) ?? [], detections: detections.get(t.id) ?? [] };
      let health: TestHealth = healthOf(t);
      const changes: StatusChange[] = [];
      for (let step = 0; step < MAX_REPLAY_STEPS && health.reevaluateAt && health.reevaluateAt.getTime() < now.getTime(); step++) {
        const r = evaluateHealth({ config, previous: health, evidence, now: health.reevaluateAt });
        if (r.change) changes.push(r.change);
        health = r.health;
      }
      const r = evaluateHealth({ config, previous: health, evidence, now });
      if (r.change) changes.push(r.change);
      const write: HealthWrite = { caseId: t.id, repoId: t.repoId, expectedVersion: t.version, health: r.health, changes };
      // A test stored before `lastEvidenceAt` existed learns it from the evidence just read, which
      // covers the lookback window: older evidence cannot matter to any monitor.
      if (t.lastEvidenceAt === undefined) write.evidenceAt = lastEvidenceIn(evidence);
      return write;
    });
  }
}

const healthOf = (t: TestCase): TestHealth => ({ status: t.status, monitors: t.monitors, reevaluateAt: t.reevaluateAt });

/** The later of two evidence times; undefined (unknown) stays unknown. */
function newest(stored: Date | null | undefined, seen: Date | null): Date | null | undefined {
  if (stored === undefined || seen === null) return stored;
  return stored === null || stored < seen ? seen : stored;
}
