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

  it('404 repository_not_found for a sha of another organisation\'s repository; the run it tests is untouched', async () => {
    const q = await makeQueue(svc);
    await q.pr(1);
    await q.submitOk(1);
    const run = await q.runOf(1);
    const other = await svc.addOrg(`status-${Date.now()}`);
    const body = { repo: q.ref.repo, sha: run.sha, context: CI, state: 'success' };
    expectError(await svc.post('/setCommitStatus', body, { token: other.token }), 404, 'repository_not_found');
    expect((await svc.ctx.store.testRuns.findById(run.id))?.status).to.equal('in_progress');
    expect((await q.entry(1)).state).to.equal('testing');
    // The queue's own organisation concludes it.
    expect((await svc.post('/setCommitStatus', body)).status).to.equal(200);
    await q.waitState(1, 'merged');
  });

  it('404 repository_not_found for a repository nobody has', async () => {
    const body = { repo: { host: 'github.com', owner: 'acme', name: 'nowhere' }, sha: 'a'.repeat(40), context: CI, state: 'success' };
    expectError(await svc.post('/setCommitStatus', body), 404, 'repository_not_found');
  });
});
