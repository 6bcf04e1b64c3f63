// POST /v1/simulateQueue over real HTTP: a queue's recorded history (written to the store as the
// engine records it) replayed under candidate settings, advice, sampling, and the error cases
// (openapi-document.test.ts checks the answer against this service's own description), and that a
// replay neither holds the process nor runs twice at once for one organisation.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { playWorkload } from '../../shared/merge-queue/simulation/workload.js';
import type { SimulateQueueResult } from '../../shared/merge-queue/simulation/queue-simulation-service.js';

const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };
type Answer = Omit<SimulateQueueResult, 'history'> & { history: Omit<SimulateQueueResult['history'], 'from' | 'to'> & { from: string; to: string } };

describe('simulateQueue', function () {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    const queue = (await svc.ctx.mergeQueue.store.queues.find(svc.orgId, DEFAULT_REPO, 'main'))!;
    // Two days ago, a serial queue took 40 pull requests, one every 8 minutes, CI 10 minutes.
    const recorded = await playWorkload(
      { concurrency: 1 },
      { pullRequests: Array.from({ length: 40 }, (_, i) => ({ arrivesAt: i * 8, breaks: i % 10 === 3 })), ciMinutes: [10], flakeRate: 0, seed: 1 },
    );
    const shift = Date.now() - 2 * 86_400_000 - recorded.entries[0]!.submittedAt.getTime();
    const moved = (d: Date): Date => new Date(d.getTime() + shift);
    for (const e of recorded.entries) {
      await svc.ctx.mergeQueue.store.entries.insert({
        ...e,
        orgId: svc.orgId,
        queueId: queue.id,
        prNumber: 1000 + e.prNumber,
        submittedAt: moved(e.submittedAt),
        stateChangedAt: moved(e.stateChangedAt),
      });
    }
    for (const r of recorded.runs) {
      await svc.ctx.mergeQueue.store.testRuns.insert({
        ...r,
        orgId: svc.orgId,
        queueId: queue.id,
        createdAt: moved(r.createdAt),
        concludedAt: r.concludedAt && moved(r.concludedAt),
      });
    }
  });
  after(async () => {
    await svc.close();
  });

  it('replays the last days under the current and candidate settings, side by side', async () => {
    const res = await svc.post<Answer>('/simulateQueue', { ...ref, days: 7, candidates: [{ concurrency: 2 }] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect([res.body.history.pullRequests, res.body.history.sampled]).to.deep.equal([40, false]);
    expect([res.body.current.efficiency.merged, res.body.current.efficiency.failed]).to.deep.equal([36, 4]);
    expect(res.body.candidates[0]!.settings.concurrency).to.equal(2);
    expect(res.body.candidates[0]!.efficiency.timeInQueueMinutes.p50!).to.be.lessThan(res.body.current.efficiency.timeInQueueMinutes.p50!);
    expect(res.body.advice).to.equal(null);
  });

  it('samples the most recent pull requests past maxPullRequests and advises for a goal', async () => {
    const res = await svc.post<Answer>('/simulateQueue', { ...ref, maxPullRequests: 20, goal: { kind: 'lowest_latency' } });
    expect(res.status).to.equal(200);
    expect([res.body.history.pullRequests, res.body.history.sampled]).to.deep.equal([20, true]);
    expect(res.body.advice!.best!.efficiency.timeInQueueMinutes.p50!).to.be.at.most(res.body.advice!.current.efficiency.timeInQueueMinutes.p50!);
  });

  it('advises the cheapest settings within a p50 and a p95 bound, and says when none meets them', async () => {
    const goal = { kind: 'lowest_ci_cost', maxP50Minutes: 1000, maxP95Minutes: 1000 };
    const res = await svc.post<Answer>('/simulateQueue', { ...ref, maxPullRequests: 20, goal });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.advice!.goal).to.deep.equal(goal);
    expect(res.body.advice!.best!.efficiency.timeInQueueMinutes.p95!).to.be.at.most(1000);
    expect(res.body.advice!.reasons.at(-1)).to.match(/the fewest CI minutes with p50 ≤ 1000 min and p95 ≤ 1000 min among \d+ settings/);
    const none = await svc.post<Answer>('/simulateQueue', { ...ref, maxPullRequests: 20, goal: { ...goal, maxP95Minutes: 0 } });
    expect([none.status, none.body.advice!.best]).to.deep.equal([200, null]);
    expect(none.body.advice!.reasons.at(-1)).to.match(/^none of the \d+ settings tried meets p50 ≤ 1000 min and p95 ≤ 0 min on this history$/);
    const negative = await svc.post<{ error: string }>('/simulateQueue', { ...ref, goal: { ...goal, maxP95Minutes: -1 } });
    expect(negative.status).to.equal(400);
  });

  it('answers 404 for a branch without a queue and 400 for too many candidates', async () => {
    expect((await svc.post('/simulateQueue', { ...ref, targetBranch: 'nope' })).status).to.equal(404);
    const many = Array.from({ length: 9 }, () => ({ concurrency: 2 }));
    expect((await svc.post('/simulateQueue', { ...ref, candidates: many })).status).to.equal(400);
  });

  it('keeps answering while it replays, and refuses a second replay of the same organisation with a time to retry', async () => {
    const ask = () => svc.post<Answer & { error?: { code: string; message: string } }>('/simulateQueue', { ...ref, goal: { kind: 'lowest_latency' } });
    const both = [ask(), ask()];
    // Whichever reached the gate second is refused at once; the other replays for seconds.
    const refused = await Promise.race(both);
    expect([refused.status, refused.body.error?.code], 'the first answer is the refusal').to.deep.equal([429, 'simulation_in_progress']);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    let replayed = false;
    const replay = Promise.all(both).then((answers) => {
      replayed = true;
      return answers;
    });
    const health = await svc.raw('GET', '/healthz');
    expect([health.status, replayed], 'answered while the replay still runs').to.deep.equal([200, false]);
    const answers = await replay;
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 429]);
    expect((await ask()).status, 'free again once answered').to.equal(200);
  });
});
