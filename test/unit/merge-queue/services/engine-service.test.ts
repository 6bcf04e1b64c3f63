// The planning pass (EngineService) over in-memory repositories and an in-memory forge: the
// business rules end to end without a database, Redis or git — admission, a run recorded before
// its branch is built, merging in order, crash recovery, timeouts.
import { expect } from 'chai';
import { EngineService } from '../../../../shared/merge-queue/services/engine/engine-service.js';
import { CommitStatusService } from '../../../../shared/merge-queue/services/commit-status-service.js';
import { PullRequestService } from '../../../../shared/merge-queue/services/pull-request-service.js';
import { QueueService } from '../../../../shared/merge-queue/services/queue-service.js';
import { createLogger } from '../../../../shared/platform/logging.js';
import type { Entry, Queue, TestRun } from '../../../../shared/merge-queue/domain/model.js';
import { StatusWatchService } from '../../../../shared/merge-queue/services/status-watch-service.js';
import { SyncService } from '../../../../shared/merge-queue/services/sync-service.js';
import { InMemoryForge } from '../../../../shared/merge-queue/simulation/in-memory-forge.js';
import { inMemoryRepositories } from '../../../../shared/merge-queue/simulation/in-memory-repositories.js';
import type { OperatorActor } from '../../../../shared/platform/accounts/actor.js';
import type { AuditRecord } from '../../../../shared/platform/audit/audit-log.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const ORG = 'org1';
/** The operator who sets the queue up and submits in these tests. */
const ADMIN: OperatorActor = { kind: 'operator', orgId: ORG, name: 'engine-service test' };
const T0 = new Date('2026-01-01T00:00:00Z');
const logger = createLogger('silent');

async function newTestService(settings: Partial<Queue> = {}) {
  const repos = inMemoryRepositories();
  const forge = new InMemoryForge();
  const repo = forge.createRepository(REPO);
  const providers = forge.registry();
  let now = T0;
  const planRequests: string[] = [];
  const timeouts: TestRun[] = [];
  const wakes: Date[] = [];
  const requestPlan = async (queueId: string) => void planRequests.push(queueId);
  const watches: { run: TestRun; at: Date }[] = [];
  const statusWatch = new StatusWatchService({ store: repos, logger });
  const statuses = new CommitStatusService({ store: repos, logger, requestPlan, statusWatch });
  const audited: AuditRecord[] = [];
  const queues = new QueueService({ store: repos, providers, logger, audit: { record: async (r) => void audited.push(r) }, requestPlan });
  const pullRequests = new PullRequestService({ store: repos, providers, queues, logger, requestPlan });
  const sut = new EngineService({
    store: repos,
    providers,
    logger,
    scheduleTimeout: async (run) => void timeouts.push(run),
    scheduleStatusWatch: async (run, at) => void watches.push({ run, at }),
    scheduleWake: async (_queueId, at) => void wakes.push(at),
    evaluateRun: (run, repo) => statuses.evaluateRun(run, repo),
    clock: () => now,
  });
  const created = await queues.create(ADMIN, REPO, 'main', { mode: 'single', concurrency: 2 });
  const queue = await repos.queues.update(created.id, created.version, { requiredStatuses: ['ci'], ...settings }, 'test settings');
  const fakes = {
    repos,
    forge,
    repo,
    planRequests,
    timeouts,
    wakes,
    watches,
    statusWatch,
    sync: new SyncService({ store: repos, providers, logger, requestPlan }),
    queueId: queue!.id,
    setNow: (at: Date) => void (now = at),
    /** Opens pull request n (adding f<n>.txt) into `base` and submits it to the queue of main. */
    submit: async (n: number, changes: Record<string, string> = { [`f${n}.txt`]: `${n}\n` }, base = 'main') => {
      if (repo.head(base) === null) repo.createBranch(base, 'main');
      repo.openPullRequest({ number: n, commits: [changes], base });
      return pullRequests.submit(ADMIN, { repo: REPO, branch: 'main', prNumber: n, priority: undefined, noBatch: undefined });
    },
    entry: async (n: number): Promise<Entry> => (await repos.entries.findLatestByPr(queue!.id, n))!,
    runOf: async (n: number): Promise<TestRun> => {
      const e = await repos.entries.findLatestByPr(queue!.id, n);
      return (await repos.testRuns.findById(e!.currentRunId!))!;
    },
    ci: (sha: string, state: 'success' | 'failure' | 'pending', context = 'ci') => statuses.record(ORG, { repo: REPO, sha, context, state }),
  };
  return { sut, fakes };
}

const states = (history: Entry['history']) => history.map((h) => h.to);

describe('EngineService.planQueue (in-memory repositories and forge)', () => {
  it('admits a ready entry and starts its run; an entry that is not ready stays out', async () => {
    const { sut, fakes } = await newTestService();
    await fakes.submit(1);
    await fakes.submit(2, { 'g.txt': 'x' }, 'develop');
    await sut.planQueue(fakes.queueId);
    const one = await fakes.entry(1);
    expect(states(one.history)).to.deep.equal(['not_ready', 'pending', 'testing']);
    const run = await fakes.runOf(1);
    expect(run.status).to.equal('in_progress');
    expect(run.sha).to.equal(fakes.repo.head(run.branch));
    expect(fakes.repo.filesAt(run.branch)).to.include({ 'f1.txt': '1\n' });
    const two = await fakes.entry(2);
    expect(two.state, 'a pull request based on another branch is not ready').to.equal('not_ready');
    expect(two.readiness.doesBaseBranchMatch).to.equal(false);
  });

  it('records the run and moves its entries to testing before the test branch is built', async () => {
    const { sut, fakes } = await newTestService();
    await fakes.submit(1);
    const atBuild: { runs: TestRun[]; entry: Entry }[] = [];
    const build = fakes.forge.buildTestBranch.bind(fakes.forge);
    fakes.forge.buildTestBranch = async (repo, input) => {
      atBuild.push({ runs: await fakes.repos.testRuns.listOpen(fakes.queueId), entry: await fakes.entry(1) });
      return build(repo, input);
    };
    await sut.planQueue(fakes.queueId);
    expect(atBuild).to.have.length(1);
    expect(atBuild[0]!.runs.map((r) => [r.status, r.sha])).to.deep.equal([['in_progress', null]]);
    expect(atBuild[0]!.entry.state).to.equal('testing');
    expect(atBuild[0]!.entry.currentRunId).to.equal(atBuild[0]!.runs[0]!.id);
  });

  it('merges passing runs in queue order, each onto the one before, and deletes the test branches', async () => {
    const { sut, fakes } = await newTestService();
    await fakes.submit(1);
    await fakes.submit(2);
    await sut.planQueue(fakes.queueId);
    const [run1, run2] = [await fakes.runOf(1), await fakes.runOf(2)];
    expect(run2.baseEntryIds, '#2 is tested on top of #1').to.deep.equal([(await fakes.entry(1)).id]);
    // #2 passes first: it waits for #1, whose merge it was tested on.
    await fakes.ci(run2.sha!, 'success');
    await sut.planQueue(fakes.queueId);
    expect((await fakes.entry(2)).state).to.equal('tests_passed');
    expect(fakes.forge.writes.filter((w) => w.startsWith('merge'))).to.deep.equal([]);
    await fakes.ci(run1.sha!, 'success');
    await sut.planQueue(fakes.queueId);
    const [one, two] = [await fakes.entry(1), await fakes.entry(2)];
    expect([one.state, two.state]).to.deep.equal(['merged', 'merged']);
    expect(
      fakes.forge.writes.filter((w) => w.startsWith('merge')),
      'one merge, #1 then #2',
    ).to.deep.equal(['merge #1 #2']);
    expect(two.mergedOntoSha).to.equal(one.mergedSha);
    expect(fakes.repo.head('main')).to.equal(two.mergedSha);
    expect(fakes.repo.filesAt('main')).to.include({ 'f1.txt': '1\n', 'f2.txt': '2\n' });
    expect(fakes.repo.branchNames(), 'test branches are removed once merged').to.deep.equal(['main']);
  });

  it('fails the run of a pull request CI rejects and restarts the one tested on top of it', async () => {
    const { sut, fakes } = await newTestService();
    await fakes.submit(1);
    await fakes.submit(2);
    await sut.planQueue(fakes.queueId);
    const [run1, run2] = [await fakes.runOf(1), await fakes.runOf(2)];
    await fakes.ci(run1.sha!, 'failure');
    await sut.planQueue(fakes.queueId);
    expect((await fakes.entry(1)).state).to.equal('failed');
    const two = await fakes.entry(2);
    expect(two.state).to.equal('testing');
    expect(two.currentRunId, '#2 is tested again, without #1').to.not.equal(run2.id);
    expect((await fakes.runOf(2)).baseEntryIds).to.deep.equal([]);
    expect(two.restartCount).to.equal(1);
  });

  it('completes a merge the forge made before a crash as merged, once, without testing it again', async () => {
    const { sut, fakes } = await newTestService();
    await fakes.submit(1);
    await sut.planQueue(fakes.queueId);
    const run = await fakes.runOf(1);
    await fakes.ci(run.sha!, 'success');
    // The pass marks #1 passed and asks the forge to merge it; the forge merges, then the
    // process dies before the entry's transition.
    const merge = fakes.forge.mergePullRequests.bind(fakes.forge);
    fakes.forge.mergePullRequests = async (repo, input) => {
      await merge(repo, input);
      throw new Error('the process died');
    };
    await sut.planQueue(fakes.queueId).then(
      () => expect.fail('the pass should have died'),
      (err: Error) => expect(err.message).to.equal('the process died'),
    );
    fakes.forge.mergePullRequests = merge;
    expect((await fakes.entry(1)).state, 'its merge was in flight').to.equal('tests_passed');
    let reads = 0;
    const read = fakes.forge.getPullRequests.bind(fakes.forge);
    fakes.forge.getPullRequests = async (repo, numbers) => {
      reads++;
      return read(repo, numbers);
    };
    await sut.planQueue(fakes.queueId);
    const after = await fakes.entry(1);
    expect(after.state).to.equal('merged');
    expect(after.history.at(-1)).to.deep.include({ reason: 'merge_graph_merge', detail: 'the merge completed before the service restarted' });
    expect(after.verifiedByTestRun).to.equal(run.id);
    expect(
      fakes.forge.writes.filter((w) => w.startsWith('merge')),
      'merged once',
    ).to.have.length(1);
    expect(fakes.repos.testRuns.rows.size, 'no new run').to.equal(1);
    expect(reads, 'crash recovery reads the pull requests once per pass').to.equal(1);
    expect(fakes.repo.branchNames(), 'its test branch is removed').to.deep.equal(['main']);
  });

  it('a pull request merged by hand while testing or pending is a merge outside the queue (the sync records it), not an interrupted merge of the pass', async () => {
    const { sut, fakes } = await newTestService({ concurrency: 1 });
    await fakes.submit(1);
    await fakes.submit(2);
    await sut.planQueue(fakes.queueId);
    const testing = await fakes.entry(1);
    const pending = await fakes.entry(2);
    expect([testing.state, pending.state]).to.deep.equal(['testing', 'pending']);
    // Someone merges both on the forge, outside the queue; no merge of the queue's was in flight.
    await fakes.forge.mergePullRequests(REPO, {
      targetBranch: 'main',
      expectedHeadSha: fakes.repo.head('main')!,
      method: 'merge_commit',
      pullRequests: [1, 2].map((n, i) => ({ number: n, headSha: [testing, pending][i]!.prSha, title: `Change ${n}`, author: `dev${n}` })),
    });
    let reads = 0;
    const read = fakes.forge.getPullRequests.bind(fakes.forge);
    fakes.forge.getPullRequests = async (repo, numbers) => {
      reads += numbers.length;
      return read(repo, numbers);
    };
    await sut.planQueue(fakes.queueId);
    expect(reads, 'a pass reads only pull requests the queue may be merging').to.equal(0);
    expect((await fakes.entry(1)).state, 'a pass leaves a merge outside the queue to the sync').to.equal('testing');
    const queue = await fakes.repos.queues.findById(fakes.queueId);
    await fakes.sync.syncQueue(queue!);
    for (const n of [1, 2]) {
      const after = await fakes.entry(n);
      expect(after.state, `#${n}`).to.equal('merged');
      expect(after.history.at(-1), `#${n}`).to.deep.include({ reason: 'manual_merge', detail: 'the pull request was merged outside the queue' });
      expect(after.verifiedByTestRun, `#${n} was not verified by a run of the queue`).to.equal(null);
    }
  });

  it('builds a run a crash left unbuilt and concludes it in the same pass when CI already reported', async () => {
    const { sut, fakes } = await newTestService();
    await fakes.submit(1);
    await sut.planQueue(fakes.queueId);
    const run = await fakes.runOf(1);
    // As if the process died after pushing the branch, before recording its head: CI saw it.
    fakes.repos.testRuns.rows.get(run.id)!.sha = null;
    fakes.repos.testRuns.rows.get(run.id)!.tree = null;
    await fakes.ci(run.sha!, 'success');
    fakes.planRequests.length = 0;
    await sut.planQueue(fakes.queueId);
    expect(await fakes.repos.testRuns.findById(run.id)).to.deep.include({ sha: run.sha, status: 'succeeded' });
    expect((await fakes.entry(1)).state).to.equal('merged');
    expect(fakes.planRequests, 'the verdict went to the pass, not to another pass').to.deep.equal([]);
  });

  it('times a run out at its deadline: the timeout check cancels it and the next pass fails its entry (re-tests off)', async () => {
    const { sut, fakes } = await newTestService({ testingTimeoutMinutes: 10, notItsFaultRetries: 0 });
    await fakes.submit(1);
    await sut.planQueue(fakes.queueId);
    const run = await fakes.runOf(1);
    const deadline = T0.getTime() + 10 * 60_000;
    expect(run.deadlineAt?.getTime()).to.equal(deadline);
    expect(fakes.timeouts.map((r) => r.id)).to.deep.equal([run.id]);
    expect(await sut.expireRun(run.id, deadline), 'not before the deadline').to.equal(false);
    fakes.setNow(new Date(deadline + 1));
    expect(await sut.expireRun(run.id, deadline - 1), 'only the attempt it was scheduled for').to.equal(false);
    expect(await sut.expireRun(run.id, deadline)).to.equal(true);
    expect(await sut.expireRun(run.id, deadline), 'once').to.equal(false);
    expect(await fakes.repos.testRuns.findById(run.id)).to.deep.include({ status: 'cancelled', conclusionReason: 'test_run_timeout' });
    await sut.planQueue(fakes.queueId);
    const one = await fakes.entry(1);
    expect(one.state).to.equal('failed');
    expect(one.history.at(-1)?.testRunId).to.equal(run.id);
  });

  it('lists the queues with work: active entries, runs in progress, branches to delete', async () => {
    const { sut, fakes } = await newTestService();
    expect(await sut.queuesWithWork()).to.deep.equal([]);
    await fakes.submit(1);
    expect(await sut.queuesWithWork()).to.deep.equal([fakes.queueId]);
  });

  describe('the stall watchdog', () => {
    const later = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

    it('is scheduled statusWaitMinutes after the build; finding nothing reported, it notes the missing contexts and warns', async () => {
      const { sut, fakes } = await newTestService({ requiredStatuses: ['ci', 'lint'], statusWaitMinutes: 20 });
      await fakes.submit(1);
      await sut.planQueue(fakes.queueId);
      const run = await fakes.runOf(1);
      expect(fakes.watches.map((w) => [w.run.id, w.at.toISOString()])).to.deep.equal([[run.id, later(20).toISOString()]]);
      await fakes.ci(run.sha!, 'pending', 'ci');
      expect(await fakes.statusWatch.check(run.id, later(20))).to.deep.equal(['lint']);
      const entry = await fakes.entry(1);
      const note = entry.history.at(-1)!;
      expect([note.from, note.to, note.reason, note.testRunId]).to.deep.equal(['testing', 'testing', 'required_status_not_reported', run.id]);
      expect(note.detail).to.match(/"lint".*after 20 min.*never reported/);
      expect(entry.lastReason, 'a note is not a transition').to.equal('test_run_started');
      const queue = (await fakes.repos.queues.findById(fakes.queueId))!;
      const warnings = await fakes.statusWatch.warnings(queue);
      expect(warnings.map((w) => [w.code, w.contexts, w.testRunIds])).to.deep.equal([
        ['required_status_never_reported', ['lint'], [run.id]],
        ['required_status_not_reported', ['lint'], [run.id]],
      ]);
      expect(warnings[0]!.message).to.include('trunk-merge/**');
      expect(await fakes.statusWatch.check(run.id, later(40)), 'one finding per run').to.deep.equal([]);
    });

    it('clears as the missing statuses arrive, and when the run ends', async () => {
      const { sut, fakes } = await newTestService({ requiredStatuses: ['ci', 'lint'] });
      await fakes.submit(1);
      await fakes.submit(2);
      await sut.planQueue(fakes.queueId);
      const [run1, run2] = [await fakes.runOf(1), await fakes.runOf(2)];
      await fakes.statusWatch.check(run1.id, later(15));
      await fakes.statusWatch.check(run2.id, later(15));
      const queue = (await fakes.repos.queues.findById(fakes.queueId))!;
      expect((await fakes.statusWatch.warnings(queue)).map((w) => w.code)).to.deep.equal([
        'required_status_never_reported',
        'required_status_not_reported',
        'required_status_not_reported',
      ]);
      await fakes.ci(run1.sha!, 'pending', 'lint');
      await fakes.ci(run1.sha!, 'pending', 'ci');
      expect((await fakes.statusWatch.warnings(queue)).map((w) => [w.code, w.testRunIds])).to.deep.equal([
        ['required_status_never_reported', [run2.id]],
        ['required_status_not_reported', [run2.id]],
      ]);
      await fakes.repos.testRuns.conclude(run2.id, 'cancelled', 'user_requested', later(16));
      expect(await fakes.statusWatch.warnings(queue)).to.deep.equal([]);
    });

    it('says nothing when every required status was reported, even as pending, or the run concluded', async () => {
      const { sut, fakes } = await newTestService({ requiredStatuses: ['ci'] });
      await fakes.submit(1);
      await fakes.submit(2);
      await sut.planQueue(fakes.queueId);
      const [run1, run2] = [await fakes.runOf(1), await fakes.runOf(2)];
      await fakes.ci(run1.sha!, 'pending');
      expect(await fakes.statusWatch.check(run1.id, later(15))).to.deep.equal([]);
      await fakes.repos.testRuns.conclude(run2.id, 'cancelled', 'user_requested', later(1));
      expect(await fakes.statusWatch.check(run2.id, later(15))).to.deep.equal([]);
      expect((await fakes.entry(1)).history.map((h) => h.reason)).to.not.include('required_status_not_reported');
    });

    it('a context CI reported on an earlier test branch is missing, not never reported', async () => {
      const { sut, fakes } = await newTestService({ requiredStatuses: ['ci'] });
      await fakes.submit(1);
      await sut.planQueue(fakes.queueId);
      await fakes.ci((await fakes.runOf(1)).sha!, 'success');
      await sut.planQueue(fakes.queueId);
      await fakes.submit(2);
      await sut.planQueue(fakes.queueId);
      const run2 = await fakes.runOf(2);
      expect(await fakes.statusWatch.check(run2.id, later(15))).to.deep.equal(['ci']);
      const queue = (await fakes.repos.queues.findById(fakes.queueId))!;
      expect((await fakes.statusWatch.warnings(queue)).map((w) => w.code)).to.deep.equal(['required_status_not_reported']);
    });
  });
});
