// Shared by the pull-requests*.test.ts files: a fresh repository + queue per test on one shared
// service, a small typed client for the pull-request endpoints that checks every 200 body
// against the OpenAPI document, bulk creation of pull request refs, and the history checks
// (every transition is a compare-and-set with a reason code).
import { expect } from 'chai';
import type { TestService, ApiResponse } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { createPullRequest, createRepo, type CommitSpec, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import type { Entry, EntryState, TestRun } from '../../shared/merge-queue/domain/model.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import { ENTRY_STATES, REASONS, TERMINAL_ENTRY_STATES } from '../../shared/merge-queue/domain/model.js';
import { gitText } from '../../shared/providers/local/git-runner.js';
import type { PullMetadata } from '../../shared/providers/local/pull-metadata.js';
import { storedEntries } from '../helpers/stored-documents.js';

export interface ErrorBody {
  error: { code: string; message: string; details: { path: string; message: string }[]; requestId: string };
}

export interface ReadinessBody {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: 'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable';
}

export interface TimelineItem {
  timestamp: string;
  state: EntryState;
  previousState: EntryState | null;
  reason: string;
  detail?: string;
  testRunId?: string;
}

export interface SubmittedBody {
  id: string;
  state: EntryState;
  readiness: ReadinessBody;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  forceEnqueued: boolean;
  isCurrentlySubmittedToQueue: boolean;
  verifiedByTestRun: string | null;
  restartCount: number;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  timeline?: TimelineItem[];
}

export interface EnqueuedBody {
  id: string;
  state: EntryState;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
}

export interface QueueBody {
  state: string;
  mode: string;
  enqueuedPullRequests: EnqueuedBody[];
}

export interface ListBody {
  pullRequests: EnqueuedBody[];
  nextCursor?: string;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Settings most tests want: CI must answer `ci/test`, so admitted entries stay observable in testing. */
export const CI = 'ci/test';

/** The service every describe shares: workers on, the provider poller effectively off (tests call syncAll). */
export const SERVICE_OPTIONS = { startWorkers: true, env: { PROVIDER_POLL_SECONDS: '3600', RECONCILE_SECONDS: '3600' } } as const;

export function expectError(res: ApiResponse, status: number, code: string, what = ''): ErrorBody {
  const body = res.body as ErrorBody;
  expect(res.status, `${what} ${JSON.stringify(res.body).slice(0, 500)}`).to.equal(status);
  expect(body.error?.code, `${what} ${JSON.stringify(res.body).slice(0, 500)}`).to.equal(code);
  return body;
}

let repoCounter = 0;

export interface QueueOptions {
  mode?: 'single' | 'parallel';
  concurrency?: number;
  /** updateQueue settings applied after creation (requiredStatuses defaults to [CI]). */
  settings?: Record<string, unknown>;
  files?: Record<string, string>;
}

/** A fresh repository (unique name) with a queue on `main`. */
export async function makeQueue(svc: TestService, opts: QueueOptions = {}): Promise<PrQueue> {
  const repo: RepoRef = { host: 'github.com', owner: 'acme', name: `widgets-${process.pid}-${++repoCounter}` };
  const fx = await createRepo(svc.gitRoot, { repo, files: opts.files ?? { 'README.md': '# widgets\n', 'shared.txt': 'one\ntwo\nthree\n' } });
  const q = new PrQueue(svc, fx, { repo, targetBranch: 'main' });
  const create = await svc.post('/createQueue', {
    ...q.ref,
    ...(opts.mode ? { mode: opts.mode } : {}),
    ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
  });
  expect(create.status, JSON.stringify(create.body)).to.equal(200);
  await q.update({ requiredStatuses: [CI], ...(opts.settings ?? {}) });
  const stored = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main');
  if (!stored) throw new Error('queue not stored');
  q.queueId = stored.id;
  return q;
}

export class PrQueue {
  queueId = '';
  constructor(
    readonly svc: TestService,
    readonly fx: FixtureRepo & { initialSha: string },
    readonly ref: { repo: RepoRef; targetBranch: string },
  ) {}

  /** Publishes pull request N changing its own file (so any set of them merges cleanly). */
  async pr(n: number, opts: { commits?: CommitSpec[]; metadata?: PullMetadata; base?: string } = {}): Promise<string> {
    const created = await createPullRequest(this.fx, {
      number: n,
      ...(opts.base ? { base: opts.base } : {}),
      commits: opts.commits ?? [{ message: `Change ${n}`, files: { [`pr-${n}.txt`]: `${n}\n` } }],
      ...(opts.metadata ? { metadata: opts.metadata } : {}),
    });
    return created.headSha;
  }

  async update(settings: Record<string, unknown>): Promise<void> {
    const res = await this.svc.post('/updateQueue', { ...this.ref, ...settings });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expectOpenApiResponse('/updateQueue', res.body);
  }

  submit(n: number | unknown, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    return this.svc.post('/submitPullRequest', { ...this.ref, pr: { number: n }, ...extra });
  }

  /**
   * Submits and waits for the planning pass the submission asked for to decide its mergeability
   * (the API answers before git is asked: docs/decisions.md), so a test starts from the decided entry.
   */
  async submitOk(n: number, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await this.submit(n, extra);
    expect(res.status, `submit #${n}: ${JSON.stringify(res.body)}`).to.equal(200);
    expectOpenApiResponse('/submitPullRequest', res.body);
    await this.mergeabilityDecided(n);
  }

  async mergeabilityDecided(n: number): Promise<void> {
    await waitFor(`#${n}'s mergeability decided`, async () => (await this.entry(n)).readiness.gitHubMergeability !== 'in_progress');
  }

  getRaw(pr: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    return this.svc.post('/getSubmittedPullRequest', { ...this.ref, pr, ...extra });
  }

  async get(n: number, opts: { timeline?: boolean } = {}): Promise<SubmittedBody> {
    const res = await this.getRaw({ number: n }, opts.timeline ? { includeTimeline: true } : {});
    expect(res.status, `get #${n}: ${JSON.stringify(res.body)}`).to.equal(200);
    expectOpenApiResponse('/getSubmittedPullRequest', res.body);
    return res.body as SubmittedBody;
  }

  cancel(n: number | unknown): Promise<ApiResponse> {
    return this.svc.post('/cancelPullRequest', { ...this.ref, pr: { number: n } });
  }

  restart(n: number | unknown): Promise<ApiResponse> {
    return this.svc.post('/restartTestsOnPullRequest', { ...this.ref, pr: { number: n } });
  }

  targets(pr: Record<string, unknown>, impactedTargets: unknown): Promise<ApiResponse> {
    return this.svc.post('/setImpactedTargets', { ...this.ref, pr, impactedTargets });
  }

  async queue(): Promise<QueueBody> {
    const res = await this.svc.post('/getQueue', this.ref);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expectOpenApiResponse('/getQueue', res.body);
    return res.body as QueueBody;
  }

  async list(body: Record<string, unknown> = {}): Promise<ListBody> {
    const res = await this.svc.post('/listPullRequests', { ...this.ref, ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expectOpenApiResponse('/listPullRequests', res.body);
    return res.body as ListBody;
  }

  /** The latest stored entry of pull request N. */
  async entry(n: number): Promise<Entry> {
    const e = await this.svc.ctx.mergeQueue.store.entries.findLatestByPr(this.queueId, n);
    if (!e) throw new Error(`#${n} has no entry`);
    return e;
  }

  async entries(n?: number): Promise<Entry[]> {
    return storedEntries(this.svc.ctx.db, n === undefined ? { queueId: this.queueId } : { queueId: this.queueId, prNumber: n });
  }

  /** Waits until #N's latest entry is in `state` (read over HTTP). */
  waitState(n: number, state: EntryState, timeoutMs = 15_000): Promise<SubmittedBody> {
    return waitFor(
      `#${n} ${state}`,
      async () => {
        const s = await this.get(n);
        return s.state === state ? s : undefined;
      },
      { timeoutMs },
    );
  }

  /** The built test run currently testing #N. */
  async runOf(n: number): Promise<TestRun> {
    return waitFor(`#${n}'s test branch built`, async () => {
      const e = await this.entry(n);
      if (e.state !== 'testing' || !e.currentRunId) return undefined;
      const run = await this.svc.ctx.mergeQueue.store.testRuns.findById(e.currentRunId);
      return run?.sha ? run : undefined;
    });
  }

  /** CI answers `state` for the run currently testing #N; returns that run. */
  async ci(n: number, state: 'success' | 'failure'): Promise<TestRun> {
    const run = await this.runOf(n);
    const res = await this.svc.post('/setCommitStatus', { repo: this.ref.repo, sha: run.sha, context: CI, state });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return run;
  }

  /** One provider poll of this service, as the periodic sync job does it. */
  sync(): Promise<void> {
    return this.svc.ctx.mergeQueue.services.sync.syncAll();
  }
}

/**
 * Publishes pull requests first..first+count-1 in one `git fast-import` (one process instead of
 * several per pull request): each adds its own file on top of `main`'s head.
 */
export async function bulkPullRequests(fx: FixtureRepo, first: number, count: number, baseSha: string): Promise<Map<number, string>> {
  const when = '1700000000 +0000';
  let stream = '';
  for (let n = first; n < first + count; n++) {
    const msg = `Change ${n}\n`;
    const content = `${n}\n`;
    stream +=
      `commit refs/pull/${n}/head\nmark :${n}\nauthor Bulk Author <bulk@example.com> ${when}\ncommitter Bulk Author <bulk@example.com> ${when}\n` +
      `data ${Buffer.byteLength(msg)}\n${msg}from ${baseSha}\nM 100644 inline bulk/pr-${n}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  }
  await gitText(['fast-import', '--quiet', '--force'], { gitDir: fx.dir, input: stream });
  const refs = await gitText(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/pull/'], { gitDir: fx.dir });
  const heads = new Map<number, string>();
  for (const line of refs.split('\n')) {
    const m = /^refs\/pull\/(\d+)\/head ([0-9a-f]{40})$/.exec(line);
    if (m) heads.set(Number(m[1]), m[2]!);
  }
  return heads;
}

/**
 * The entry's history is a chain of compare-and-set transitions: it starts with the submission
 * (null → not_ready), each step starts where the previous one ended, every step has a known
 * reason code, the last one is the entry's state and reason, and every write bumped the version.
 */
export function expectConsistentHistory(e: Entry): void {
  const what = `entry ${e.id} (#${e.prNumber}): ${JSON.stringify(e.history.map((h) => [h.from, h.to, h.reason]))}`;
  expect(e.history.length, what).to.be.greaterThan(0);
  expect(e.history[0]!.from, what).to.equal(null);
  expect(e.history[0]!.to, what).to.equal('not_ready');
  expect(e.history[0]!.reason, what).to.equal('api_requested');
  for (let i = 0; i < e.history.length; i++) {
    const h = e.history[i]!;
    expect(REASONS as readonly string[], what).to.include(h.reason);
    expect(ENTRY_STATES as readonly string[], what).to.include(h.to);
    expect(h.at, what).to.be.instanceOf(Date);
    if (i > 0) {
      expect(h.from, `${what} step ${i}`).to.equal(e.history[i - 1]!.to);
      expect(h.at.getTime(), `${what} step ${i} time`).to.be.at.least(e.history[i - 1]!.at.getTime());
      // Nothing leaves a final state.
      expect(TERMINAL_ENTRY_STATES, `${what} step ${i} leaves a final state`).not.to.include(h.from);
      expect(h.from, `${what} step ${i} is a change`).not.to.equal(h.to);
    }
  }
  const last = e.history.at(-1)!;
  expect(e.state, what).to.equal(last.to);
  expect(e.lastReason, what).to.equal(last.reason);
  expect(e.stateChangedAt.getTime(), what).to.equal(last.at.getTime());
  expect(e.version, what).to.be.at.least(e.history.length);
  const restarts = e.history.filter((h) => h.to === 'pending' && h.from !== 'not_ready').length;
  expect(e.restartCount, `${what} restartCount`).to.be.at.most(restarts);
}
