// setCommitStatus over real HTTP: a status concludes the run testing its commit, and a repository
// without a queue of the caller's organisation (another organisation's, or unknown) is a 404 —
// a status from another organisation must not be accepted as if it counted.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { CI, expectError, makeQueue, SERVICE_OPTIONS } from './pull-requests-support.js';

describe('setCommitStatus', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  it("404 repository_not_found for a sha of another organisation's repository; the run it tests is untouched", async () => {
    const q = await makeQueue(svc);
    await q.pr(1);
    await q.submitOk(1);
    const run = await q.runOf(1);
    const other = await svc.addOrg(`status-${Date.now()}`);
    const body = { repo: q.ref.repo, sha: run.sha, context: CI, state: 'success' };
    expectError(await svc.post('/setCommitStatus', body, { token: other.token }), 404, 'repository_not_found');
    expect((await svc.ctx.mergeQueue.store.testRuns.findById(run.id))?.status).to.equal('in_progress');
    expect((await q.entry(1)).state).to.equal('testing');
    // The queue's own organisation concludes it.
    expect((await svc.post('/setCommitStatus', body)).status).to.equal(200);
    await q.waitState(1, 'merged');
  });

  it('404 repository_not_found for a repository nobody has', async () => {
    const body = { repo: { host: 'github.com', owner: 'acme', name: 'nowhere' }, sha: 'a'.repeat(40), context: CI, state: 'success' };
    expectError(await svc.post('/setCommitStatus', body), 404, 'repository_not_found');
  });

  it('400 for a target URL that is not http(s): a link stored from CI is shown to people', async () => {
    const q = await makeQueue(svc);
    await q.pr(1);
    await q.submitOk(1);
    const run = await q.runOf(1);
    for (const targetUrl of [
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      'file:///etc/passwd',
      '/relative/path',
      'JavaScript:alert(1)',
    ]) {
      const res = await svc.post<{ error: { code: string; details: { path: string }[] } }>('/setCommitStatus', {
        repo: q.ref.repo,
        sha: run.sha,
        context: CI,
        state: 'pending',
        targetUrl,
      });
      expect(res.status, targetUrl).to.equal(400);
      expect(
        res.body.error.details.map((d) => d.path),
        targetUrl,
      ).to.deep.equal(['/targetUrl']);
    }
    expect(
      (await svc.post('/setCommitStatus', { repo: q.ref.repo, sha: run.sha, context: CI, state: 'pending', targetUrl: 'HTTPS://ci.example/runs/1' })).status,
    ).to.equal(200);
    const details = await svc.post<{ statusChecks: { url: string | null }[] }>('/getMergeQueueTestingDetails', { ...q.ref, testRunId: run.id });
    expect(details.body.statusChecks.map((c) => c.url)).to.deep.equal(['HTTPS://ci.example/runs/1']);
  });
});
