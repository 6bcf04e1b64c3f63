// createPrsForTestingBranches on a GitHub repository (the GitHub double), end to end through
// webhooks: a draft pull request per test branch while its run tests, closed when the run ends.
import { expect } from 'chai';
import { waitFor } from '../../scripts/lib/wait.js';
import { pushToBranch } from '../../scripts/lib/git-fixtures.js';
import { createGitHubStore } from '../../shared/github/store/github-store.js';
import { GitHubHarness, QUEUE_TOKEN, ref, repo } from './github-support.js';
import type { CreatedPullRecord } from '../doubles/github/github-double.js';

describe('draft pull requests for test branches on GitHub (end to end)', function () {
  this.timeout(90_000);
  let h: GitHubHarness;

  beforeEach(async () => {
    h = await GitHubHarness.start();
  });

  afterEach(async () => {
    await h.close();
  });

  const draftOf = (branch: string): CreatedPullRecord | undefined => h.double.createdPulls.find((p) => p.head === branch);
  const runBranch = async (n: number): Promise<string> => {
    const s = await h.get(n);
    const runId = s.timeline.find((t) => t.testRunId)?.testRunId;
    return `trunk-merge/pr-${n}/${runId}`;
  };

  it('on: a draft pull request is open while the run tests and closed after it merged', async () => {
    await h.configure({ createPrsForTestingBranches: true });
    let release = false;
    h.runCi('statuses', () => (release ? 'success' : null));
    await h.pr(1);
    await h.submit(1);
    await h.untilState(1, ['testing']);
    const branch = await runBranch(1);
    const draft = await waitFor('draft pull request opened', async () => draftOf(branch));
    expect(draft).to.deep.include({ repo: `${repo.owner}/${repo.name}`, base: 'main', draft: true, state: 'open', title: 'Merge queue: testing #1 into main' });
    expect(draft.body).to.include('- #1 Change 1');
    expect(draft.body).to.match(new RegExp(`/merge-queue/test-run/[^?]+\\?repo=github.com%2Facme%2Fwidgets&branch=main`));
    expect(await h.onGitHub(draft.number)).to.include({ state: 'open', draft: true });
    release = true;
    await h.untilState(1, ['merged']);
    await waitFor('draft pull request closed', async () => draftOf(branch)?.state === 'closed');
    expect(await h.onGitHub(draft.number)).to.include({ state: 'closed', merged: false });
    expect(h.double.createdPulls, 'one draft pull request in all').to.have.length(1);
  });

  it('restarted and cancelled runs: each run had its own draft pull request, closed when it ended', async () => {
    await h.configure({});
    h.runCi('statuses', () => null);
    await h.pr(1);
    await h.submit(1);
    await h.untilState(1, ['testing']);
    const first = await runBranch(1);
    await waitFor('draft of the first run', async () => draftOf(first)?.state === 'open');
    expect((await h.svc.post('/restartTestsOnPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
    const second = await waitFor('a new run', async () => {
      const branch = await runBranch(1);
      return branch !== first && (await h.get(1)).state === 'testing' ? branch : undefined;
    });
    await waitFor('draft of the first run closed, of the second open', async () => draftOf(first)?.state === 'closed' && draftOf(second)?.state === 'open');
    expect((await h.svc.post('/cancelPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
    await waitFor('draft of the cancelled run closed', async () => draftOf(second)?.state === 'closed');
    expect(h.double.createdPulls.map((p) => p.head)).to.deep.equal([first, second]);
  });

  it('a lost answer to the creation: the retry finds the pull request GitHub made and does not open a second', async () => {
    await h.configure({});
    let release = false;
    h.runCi('statuses', () => (release ? 'success' : null));
    h.double.faults.lostAnswer = { method: 'POST', pathIncludes: `/repos/${repo.owner}/${repo.name}/pulls`, remaining: 1 };
    await h.pr(1);
    await h.submit(1);
    await h.untilState(1, ['testing']);
    const branch = await runBranch(1);
    await waitFor('draft pull request opened', async () => draftOf(branch));
    // Whichever pass gets there, the pull request is known once: no pass creates another.
    await h.svc.ctx.github?.testBranchPullRequests.reconcileAll();
    expect(h.double.createdPulls).to.have.length(1);
    expect(h.double.requestsTo('POST', '/pulls').map((r) => r.status)).to.include(502);
    release = true;
    await h.untilState(1, ['merged']);
    await waitFor('draft pull request closed', async () => draftOf(branch)?.state === 'closed');
  });

  it('a crash between GitHub creating the pull request and recording it: the pull request is closed once its run has ended', async () => {
    await h.configure({});
    const queue = await h.svc.ctx.mergeQueue.store.queues.find(h.svc.orgId, repo, 'main');
    // What a pass that died leaves: its row still `opening`, and the pull request GitHub made.
    const branch = 'trunk-merge/pr-1/run-of-a-crashed-process';
    await pushToBranch(h.fx, branch, [{ message: 'tested', files: { 'f1.txt': '1\n' } }]);
    const rows = createGitHubStore(h.svc.ctx.db).testBranchPulls;
    expect(await rows.begin({ testRunId: 'run-of-a-crashed-process', queueId: queue!.id, repo, branch })).to.equal(true);
    const made = await fetch(`${h.double.apiUrl}/repos/${repo.owner}/${repo.name}/pulls`, {
      method: 'POST',
      headers: { authorization: `token ${QUEUE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ head: branch, base: 'main', title: 'Merge queue: testing #1 into main', body: 'left by a crash', draft: true }),
    });
    expect(made.status).to.equal(201);
    expect(await h.svc.ctx.github?.testBranchPullRequests.reconcileAll()).to.equal(1);
    expect(draftOf(branch)?.state).to.equal('closed');
    expect((await rows.find('run-of-a-crashed-process'))?.state).to.equal('closed');
  });

  it('off: no pull request is opened for test branches', async () => {
    await h.configure({ createPrsForTestingBranches: false });
    h.runCi('statuses');
    await h.pr(1);
    await h.submit(1);
    await h.untilState(1, ['merged']);
    await h.svc.ctx.github?.testBranchPullRequests.reconcileAll();
    expect(h.double.createdPulls).to.deep.equal([]);
    expect(h.double.requestsTo('POST', '/pulls')).to.deep.equal([]);
  });
});
