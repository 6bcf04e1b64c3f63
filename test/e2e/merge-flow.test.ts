// The whole service on a real git repository: submit → admitted → test branch built → CI status
// → merged onto main, as a client and a CI system see it over HTTP.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { createPullRequest, createRepo, DEFAULT_REPO, readFileAt, branchSha, listCommits, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };

interface Submitted {
  id: string;
  state: string;
  verifiedByTestRun: string | null;
  timeline?: { state: string; reason: string; testRunId?: string }[];
}

describe('merge flow (end to end)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let fx: FixtureRepo;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    fx = await createRepo(svc.gitRoot, { repo, files: { 'README.md': '# widgets\n', 'src/a.txt': 'a\n' } });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    expect((await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'] })).status).to.equal(200);
  });
  afterEach(async () => {
    await svc.close();
  });

  async function submitted(n: number): Promise<Submitted> {
    const res = await svc.post<Submitted>('/getSubmittedPullRequest', { ...ref, pr: { number: n }, includeTimeline: true });
    expect(res.status).to.equal(200);
    return res.body;
  }

  it('tests a submitted pull request on a trunk-merge branch and merges it when CI passes', async () => {
    await createPullRequest(fx, { number: 1, commits: [{ message: 'Add b', files: { 'src/b.txt': 'b\n' } }], metadata: { title: 'Add b', author: 'alice' } });
    const sub = await svc.post('/submitPullRequest', { ...ref, pr: { number: 1 } });
    expect(sub.status).to.equal(200);
    expectOpenApiResponse('/submitPullRequest', sub.body);

    const testing = await waitFor('PR #1 testing', async () => {
      const s = await submitted(1);
      return s.state === 'testing' ? s : undefined;
    });
    const runId = testing.timeline?.find((t) => t.state === 'testing')?.testRunId;
    expect(runId).to.be.a('string');

    const details = await waitFor('test branch built', async () => {
      const d = await svc.post<{ testBranchSha: string; testBranch: string; status: string }>('/getMergeQueueTestingDetails', { ...ref, testRunId: runId });
      return d.body.testBranchSha ? d : undefined;
    });
    expectOpenApiResponse('/getMergeQueueTestingDetails', details.body);
    expect(details.body.testBranch).to.equal(`trunk-merge/pr-1/${runId}`);
    expect(details.body.status).to.equal('in_progress');
    expect(await branchSha(fx, details.body.testBranch)).to.equal(details.body.testBranchSha);

    const status = await svc.post('/setCommitStatus', {
      repo,
      sha: details.body.testBranchSha,
      context: 'ci/test',
      state: 'success',
      targetUrl: 'https://ci.example/1',
    });
    expect(status.status).to.equal(200);

    const merged = await waitFor('PR #1 merged', async () => {
      const s = await submitted(1);
      return s.state === 'merged' ? s : undefined;
    });
    expect(merged.verifiedByTestRun).to.equal(runId);
    expect(await readFileAt(fx, 'main', 'src/b.txt')).to.equal('b\n');
    const [head] = await listCommits(fx, 'main', { limit: 1 });
    expect(head?.subject).to.equal('Add b (#1)');
    await waitFor('test branch deleted', async () => (await branchSha(fx, details.body.testBranch)) === null);
    const after = await svc.post<{ statusChecks: { context: string; url: string; state: string }[]; checkSuites: unknown[]; status: string }>(
      '/getMergeQueueTestingDetails',
      { ...ref, testRunId: runId },
    );
    expect(after.body.status).to.equal('succeeded');
    expect(after.body.statusChecks).to.deep.equal([{ context: 'ci/test', url: 'https://ci.example/1', state: 'SUCCESS' }]);
    expect(after.body.checkSuites, 'local repositories have no check suites').to.deep.equal([]);
  });
});
