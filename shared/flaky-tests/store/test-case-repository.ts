// Test cases: one document per (repository, test id) with the identity fields, the latest
// codeowners, the detection state (status, monitor states, when time alone changes them), the
// quarantine override with its audit trail, and a linked ticket. Status changes are
// compare-and-set on `version` and recorded in `statusHistory`.
//
// `repoStatus` and `repoOverride` are "<repoId>|<value>" keys so that every list query is one
// equality (or $in) on an indexed field, which both engines serve from the index.
import { randomUUID } from 'node:crypto';
import {
  onlyDuplicateKeys,
  type BulkOperation,
  type Database,
  type DocCollection,
  type IndexSpec,
  type StoredDoc,
} from '../../platform/database/collection.js';
import type { HealthStatus, StatusChange, TestHealth } from '../domain/detection/types.js';
import { initialHealth } from '../domain/detection/classify.js';
import type { QuarantineOverride } from '../domain/detection/quarantine.js';
import type { EmittedEvent } from '../../platform/events/event-types.js';
import {
  collectionOutbox,
  LEAVE_FOR_SWEEP,
  outboxPush,
  OUTBOX_INDEX,
  toOutbox,
  type EventRelay,
  type OutboxEvent,
  type OutboxSource,
} from '../../platform/events/outbox.js';
import type { QuarantineAudit, QuarantineRecord, QuarantineRelease, TestCase, TicketLink } from '../domain/model.js';

type TestCaseDoc = StoredDoc &
  Omit<TestCase, 'id'> & {
    repoStatus: string;
    repoOverride: string | null;
    /** Pinned tests (override or ticket) never expire with inactivity. */
    pinned: boolean;
    /** Events of a status or quarantine change, written with it (shared/events/outbox.ts). */
    outbox?: OutboxEvent[];
    expiresAt: Date;
    /** Id of the last detection write, to tell which writes of a bulk compare-and-set landed. */
    evalToken?: string;
  };

const STATUS_HISTORY_LIMIT = 50;
const QUARANTINE_HISTORY_LIMIT = 100;

export const TEST_CASE_INDEXES: IndexSpec[] = [
  { key: { repoStatus: 1, _id: 1 }, name: 'repo_status', comment: 'list-unhealthy-tests, auto-quarantined tests: tests of a repository with a status' },
  { key: { repoOverride: 1 }, name: 'repo_override', comment: 'list-quarantined-tests / getQuarantineConfig: tests pinned ALWAYS_QUARANTINE' },
  { key: { repoId: 1, reevaluateAt: 1 }, name: 'repo_reevaluate', comment: 'flaky-refresh: tests whose status changes by the passing of time' },
  {
    key: { expiresAt: 1 },
    name: 'expires_at_ttl',
    expireAfterSeconds: 0,
    partialFilterExpression: { pinned: false },
    comment: 'retention: tests without runs for the retention period disappear unless pinned',
  },
  OUTBOX_INDEX,
];

export const repoStatusKey = (repoId: string, value: HealthStatus) => `${repoId}|${value}`;
const overrideKey = (repoId: string, override: QuarantineOverride | null) => (override ? `${repoId}|${override}` : null);

/** Written out field by field: a rest spread of what to leave out made every test a slow dictionary object. */
const toTestCase = (d: TestCaseDoc): TestCase => {
  const test: TestCase = {
    id: d._id,
    orgId: d.orgId,
    repoId: d.repoId,
    testId: d.testId,
    name: d.name,
    classname: d.classname,
    parent: d.parent,
    file: d.file,
    fileHint: d.fileHint,
    variant: d.variant,
    codeowners: d.codeowners,
    createdAt: d.createdAt,
    lastRunAt: d.lastRunAt,
    status: d.status,
    monitors: d.monitors,
    reevaluateAt: d.reevaluateAt,
    statusHistory: d.statusHistory,
    quarantine: d.quarantine,
    quarantineHistory: d.quarantineHistory,
    ticket: d.ticket,
    version: d.version,
  };
  if (d.quarantineRelease !== undefined) test.quarantineRelease = d.quarantineRelease;
  if (d.lastEvidenceAt !== undefined) test.lastEvidenceAt = d.lastEvidenceAt;
  return test;
};

/** A test as an upload saw it: its identity fields, plus what the upload tells about it. */
export type SeenTest = Pick<TestCase, 'orgId' | 'repoId' | 'testId' | 'name' | 'classname' | 'parent' | 'file' | 'fileHint' | 'variant'> & {
  caseId: string;
  /** Set when the upload carried a CODEOWNERS file; otherwise the stored owners stay. */
  codeowners: string[] | null;
  firstRunAt: Date;
  lastRunAt: Date;
  expiresAt: Date;
  /** The newest failure or detection the upload brings (null: none). */
  lastEvidenceAt: Date | null;
};

/** What an upload tells about a known test besides its runs. */
export interface SeenRefresh {
  codeowners: string[] | null;
  fileHint: string | null;
  lastRunAt: Date;
  expiresAt: Date;
  /** The newest failure or detection the upload brings (null: none). */
  lastEvidenceAt: Date | null;
}

export interface HealthWrite {
  caseId: string;
  repoId: string;
  expectedVersion: number;
  health: TestHealth;
  /** Status changes since the stored state, oldest first. */
  changes: StatusChange[];
  seen?: SeenRefresh;
  /** The test's newest evidence as the evaluation read it, for a test stored without `lastEvidenceAt`. */
  evidenceAt?: Date | null;
  /** The events the change announces (status changes, an automatic quarantine), written with it. */
  events?: EmittedEvent[];
}

/** The `$max` of what an upload saw (fields only move forward); `$set` fields go into `set`. */
function seenUpdate(seen: SeenRefresh, set: Record<string, unknown>): Record<string, Date> {
  if (seen.codeowners) set.codeowners = seen.codeowners;
  if (seen.fileHint !== null) set.fileHint = seen.fileHint;
  const max: Record<string, Date> = { lastRunAt: seen.lastRunAt, expiresAt: seen.expiresAt };
  if (seen.lastEvidenceAt !== null) max.lastEvidenceAt = seen.lastEvidenceAt;
  return max;
}

/** Tests with their status, quarantine and ticket, as the services see them (DbTestCaseRepository is the database's). */
export interface TestCaseRepository {
  /** The tests' outboxes, for the event relay's sweep. */
  readonly outbox: OutboxSource;
  /** Creates tests seen for the first time; ones a concurrent upload created first are left alone. */
  insertNew(tests: readonly SeenTest[]): Promise<void>;
  /** Metadata refresh of known tests outside a detection write (no version change: not a state change). */
  refreshSeen(items: readonly { caseId: string; seen: SeenRefresh }[]): Promise<void>;
  findById(caseId: string): Promise<TestCase | null>;
  /** The first of these case ids that names a stored test (caseIdCandidates: a test id as a caller gave it). */
  findFirst(caseIds: readonly string[]): Promise<TestCase | null>;
  findByIds(caseIds: readonly string[]): Promise<TestCase[]>;
  /**
   * Compare-and-set of detection results. Returns the case ids whose write lost a race (another
   * upload evaluated them in between); the caller re-evaluates those.
   */
  saveHealth(writes: readonly HealthWrite[]): Promise<string[]>;
  /** Ids of the repository's tests with this status, ascending (the lists' order). */
  idsWithStatus(repoId: string, values: readonly HealthStatus[]): Promise<string[]>;
  /** Ids of tests pinned with this override, ascending. */
  idsWithOverride(repoId: string, override: QuarantineOverride): Promise<string[]>;
  /** Tests whose status may have changed by now without new runs. */
  findDue(repoId: string, now: Date, limit: number): Promise<TestCase[]>;
  /** The earliest `reevaluateAt` of the repository's tests; null when none is set. */
  earliestDue(repoId: string): Promise<Date | null>;
  /** After a detection-configuration change: every test is re-evaluated on next read. */
  markAllDue(repoId: string, now: Date): Promise<number>;
  /** Compare-and-set of the quarantine override, with the events it announces; null when the test changed in between. */
  setQuarantine(current: TestCase, record: QuarantineRecord | null, audit: QuarantineAudit, events?: readonly EmittedEvent[]): Promise<TestCase | null>;
  /** Overridden tests of the repository whose override expired by `now`. */
  withExpiredOverride(repoId: string, now: Date): Promise<TestCase[]>;
  /** Tests of the repository whose automatic quarantine is released. */
  withRelease(repoId: string): Promise<TestCase[]>;
  /** Compare-and-set of an automatic quarantine's release (null: quarantined again); null when the test changed in between. */
  setRelease(current: TestCase, release: QuarantineRelease | null, audit: QuarantineAudit): Promise<TestCase | null>;
  /** Compare-and-set of the linked ticket; null when the test changed in between. */
  setTicket(current: TestCase, ticket: TicketLink): Promise<TestCase | null>;
}

export class DbTestCaseRepository implements TestCaseRepository {
  private readonly col: DocCollection<TestCaseDoc>;
  /** The tests' outboxes, for the event relay's sweep. */
  readonly outbox: OutboxSource;
  constructor(
    db: Database,
    private readonly relay: EventRelay = LEAVE_FOR_SWEEP,
  ) {
    this.col = db.collection<TestCaseDoc>('flaky_test_cases');
    this.outbox = collectionOutbox(db, 'flaky_test_cases');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(TEST_CASE_INDEXES);
  }

  /** Creates tests seen for the first time; ones a concurrent upload created first are left alone. */
  async insertNew(tests: readonly SeenTest[]): Promise<void> {
    if (tests.length === 0) return;
    const docs: TestCaseDoc[] = tests.map((t) => {
      const initial = initialHealth(t.firstRunAt);
      return {
        _id: t.caseId,
        orgId: t.orgId,
        repoId: t.repoId,
        testId: t.testId,
        name: t.name,
        classname: t.classname,
        parent: t.parent,
        file: t.file,
        fileHint: t.fileHint,
        variant: t.variant,
        codeowners: t.codeowners ?? [],
        createdAt: t.firstRunAt,
        lastRunAt: t.lastRunAt,
        status: initial.status,
        repoStatus: repoStatusKey(t.repoId, 'healthy'),
        monitors: {},
        reevaluateAt: null,
        statusHistory: [],
        quarantine: null,
        repoOverride: null,
        quarantineHistory: [],
        ticket: null,
        pinned: false,
        expiresAt: t.expiresAt,
        version: 0,
        lastEvidenceAt: t.lastEvidenceAt,
      };
    });
    try {
      await this.col.insertMany(docs, { ordered: false });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
    }
  }

  /** Metadata refresh of known tests outside a detection write (no version change: not a state change). */
  async refreshSeen(items: readonly { caseId: string; seen: SeenRefresh }[]): Promise<void> {
    if (items.length === 0) return;
    await this.col.bulkWrite(
      items.map(({ caseId, seen }) => {
        const set: Record<string, unknown> = {};
        const update: Record<string, unknown> = { $max: seenUpdate(seen, set) };
        if (Object.keys(set).length > 0) update.$set = set;
        return { updateOne: { filter: { _id: caseId }, update } };
      }),
      { ordered: false },
    );
  }

  async findById(caseId: string): Promise<TestCase | null> {
    const d = await this.col.findOne({ _id: caseId });
    return d ? toTestCase(d) : null;
  }

  /** The first of these case ids that names a stored test (caseIdCandidates: a test id as a caller gave it). */
  async findFirst(caseIds: readonly string[]): Promise<TestCase | null> {
    const found = new Map((await this.findByIds(caseIds)).map((t) => [t.id, t]));
    for (const id of caseIds) {
      const test = found.get(id);
      if (test) return test;
    }
    return null;
  }

  async findByIds(caseIds: readonly string[]): Promise<TestCase[]> {
    if (caseIds.length === 0) return [];
    return (await this.col.find({ _id: { $in: [...caseIds] } }, { readOnly: true })).map(toTestCase);
  }

  /**
   * Compare-and-set of detection results. Returns the case ids whose write lost a race (another
   * upload evaluated them in between); the caller re-evaluates those.
   */
  async saveHealth(writes: readonly HealthWrite[]): Promise<string[]> {
    if (writes.length === 0) return [];
    const token = randomUUID();
    const now = new Date();
    const outboxes = new Map(writes.map((w) => [w.caseId, toOutbox(w.events ?? [], now)]));
    const ops: BulkOperation<TestCaseDoc>[] = writes.map((w) => {
      const set: Record<string, unknown> = {
        evalToken: token,
        status: w.health.status,
        repoStatus: repoStatusKey(w.repoId, w.health.status.value),
        monitors: w.health.monitors,
        reevaluateAt: w.health.reevaluateAt,
      };
      const update: Record<string, unknown> = { $set: set, $inc: { version: 1 } };
      const max: Record<string, Date> = w.seen ? seenUpdate(w.seen, set) : {};
      if (w.evidenceAt !== undefined) {
        const seenAt = max.lastEvidenceAt;
        if (w.evidenceAt === null) {
          if (!seenAt) set.lastEvidenceAt = null;
        } else if (!seenAt || seenAt < w.evidenceAt) max.lastEvidenceAt = w.evidenceAt;
      }
      if (Object.keys(max).length > 0) update.$max = max;
      const push = {
        ...(w.changes.length > 0 ? { statusHistory: { $each: w.changes, $slice: -STATUS_HISTORY_LIMIT } } : {}),
        ...outboxPush(outboxes.get(w.caseId) ?? []),
      };
      if (Object.keys(push).length > 0) update.$push = push;
      return { updateOne: { filter: { _id: w.caseId, version: w.expectedVersion }, update } };
    });
    const result = await this.col.bulkWrite(ops, { ordered: false });
    let lost: string[] = [];
    if (result.matchedCount !== writes.length) {
      // Some lost. A write that landed carries our token unless a later write replaced it — and a
      // later write evaluated newer evidence, so re-evaluating it too is merely redundant.
      const stored = await this.col.find({ _id: { $in: writes.map((w) => w.caseId) } }, { projection: { _id: 1, evalToken: 1 } });
      const landed = new Map(stored.map((d) => [d._id, d.evalToken === token]));
      lost = writes.filter((w) => landed.get(w.caseId) === false).map((w) => w.caseId);
    }
    const lostIds = new Set(lost);
    await this.relay.relayMany(
      this.outbox,
      [...outboxes].filter(([caseId]) => !lostIds.has(caseId)).map(([docId, events]) => ({ docId, events })),
    );
    return lost;
  }

  /** Ids of the repository's tests with this status, ascending (the lists' order). */
  async idsWithStatus(repoId: string, values: readonly HealthStatus[]): Promise<string[]> {
    const docs = await this.col.find({ repoStatus: { $in: values.map((v) => repoStatusKey(repoId, v)) } }, { projection: { _id: 1 }, sort: { _id: 1 } });
    return docs.map((d) => d._id);
  }

  /** Ids of tests pinned with this override, ascending. */
  async idsWithOverride(repoId: string, override: QuarantineOverride): Promise<string[]> {
    const docs = await this.col.find({ repoOverride: overrideKey(repoId, override) }, { projection: { _id: 1 }, sort: { _id: 1 } });
    return docs.map((d) => d._id);
  }

  /** Tests whose status may have changed by now without new runs. */
  async findDue(repoId: string, now: Date, limit: number): Promise<TestCase[]> {
    const docs = await this.col.find({ repoId, reevaluateAt: { $lte: now } }, { sort: { reevaluateAt: 1 }, limit });
    return docs.map(toTestCase);
  }

  /** The earliest `reevaluateAt` of the repository's tests; null when none is set. */
  async earliestDue(repoId: string): Promise<Date | null> {
    const [d] = await this.col.find({ repoId, reevaluateAt: { $ne: null } }, { sort: { reevaluateAt: 1 }, limit: 1, projection: { reevaluateAt: 1 } });
    return d?.reevaluateAt ?? null;
  }

  /** After a detection-configuration change: every test is re-evaluated on next read. */
  async markAllDue(repoId: string, now: Date): Promise<number> {
    const res = await this.col.updateMany({ repoId }, { $set: { reevaluateAt: now } });
    return res.modifiedCount;
  }

  /** Compare-and-set of the quarantine override, with the events it announces; null when the test changed in between. */
  async setQuarantine(
    current: TestCase,
    record: QuarantineRecord | null,
    audit: QuarantineAudit,
    events: readonly EmittedEvent[] = [],
  ): Promise<TestCase | null> {
    const outbox = toOutbox(events, audit.at);
    const d = await this.col.findOneAndUpdate(
      { _id: current.id, version: current.version },
      {
        $set: {
          quarantine: record,
          repoOverride: overrideKey(current.repoId, record?.override ?? null),
          pinned: record !== null || current.ticket !== null,
        },
        $inc: { version: 1 },
        $push: { quarantineHistory: { $each: [audit], $slice: -QUARANTINE_HISTORY_LIMIT }, ...outboxPush(outbox) },
      },
    );
    if (!d) return null;
    await this.relay.relay(this.outbox, current.id, outbox);
    return toTestCase(d);
  }

  /** Overridden tests of the repository whose override expired by `now`. */
  async withExpiredOverride(repoId: string, now: Date): Promise<TestCase[]> {
    const docs = await this.col.find({ repoId, 'quarantine.expiresAt': { $lte: now } });
    return docs.map(toTestCase);
  }

  /** Tests of the repository whose automatic quarantine is released. */
  async withRelease(repoId: string): Promise<TestCase[]> {
    return (await this.col.find({ repoId, quarantineRelease: { $ne: null } })).map(toTestCase);
  }

  /** Compare-and-set of an automatic quarantine's release (null: quarantined again); null when the test changed in between. */
  async setRelease(current: TestCase, release: QuarantineRelease | null, audit: QuarantineAudit): Promise<TestCase | null> {
    const d = await this.col.findOneAndUpdate(
      { _id: current.id, version: current.version },
      { $set: { quarantineRelease: release }, $inc: { version: 1 }, $push: { quarantineHistory: { $each: [audit], $slice: -QUARANTINE_HISTORY_LIMIT } } },
    );
    return d ? toTestCase(d) : null;
  }

  /** Compare-and-set of the linked ticket; null when the test changed in between. */
  async setTicket(current: TestCase, ticket: TicketLink): Promise<TestCase | null> {
    const d = await this.col.findOneAndUpdate({ _id: current.id, version: current.version }, { $set: { ticket, pinned: true }, $inc: { version: 1 } });
    return d ? toTestCase(d) : null;
  }
}
