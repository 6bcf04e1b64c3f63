// A GitHub repository's record over HTTP against the GitHub double: pull requests from forks are
// refused unless an admin of the owning organisation allows them, and an admin moves the
// repository to another organisation once no queue of the owner is left on it.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, makeGitRoot, removeGitRoot } from '../../scripts/lib/git-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const ref = { repo, targetBranch: 'main' };

interface ErrorBody {
  error: { code: string; message: string };
}

describe('GitHub repositories: fork policy and owner', function () {
  this.timeout(60_000);
  let root: string;
  let double: GitHubDouble;
  let svc: TestService;

  before(async () => {
    root = await makeGitRoot();
    double = await startGitHubDouble(root);
    const fx = await createRepo(root, { repo });
    for (const n of [1, 2]) await createPullRequest(fx, { number: n, commits: [{ message: `Change ${n}`, files: { [`f${n}.txt`]: `${n}\n` } }] });
    double.forks.set('acme/widgets#2', 'mallory');
    svc = await startTestService({
      startWorkers: true,
      env: {
        ...double.appEnv,
        PROVIDER_POLL_SECONDS: '3600',
        GITHUB_WEBHOOK_POLL_SECONDS: '3600',
      },
    });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
  });
  after(async () => {
    await svc.close();
    await double.close();
    await removeGitRoot(root);
  });

  it('refuses a pull request from a fork until an admin allows forks; its own branches are queued', async () => {
    expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
    const refused = await svc.post<ErrorBody>('/submitPullRequest', { ...ref, pr: { number: 2 } });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('fork_pull_request_not_allowed');
    expect(refused.body.error.message).to.contain('secrets').and.to.contain('allowForkPullRequests');
    expect(await svc.ctx.mergeQueue.store.entries.findLatestByPr((await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main'))!.id, 2)).to.equal(null);

    const reader = await svc.post<{ token: string }>('/createToken', { name: 'reader', role: 'read' });
    expect((await svc.post('/getGitHubRepository', { repo }, { token: reader.body.token })).body).to.deep.include({
      organization: 'default',
      allowForkPullRequests: false,
    });
    expect((await svc.post('/updateGitHubRepository', { repo, allowForkPullRequests: true }, { token: reader.body.token })).status).to.equal(403);
    const allowed = await svc.post('/updateGitHubRepository', { repo, allowForkPullRequests: true });
    expect(allowed.status).to.equal(200);
    expect(allowed.body).to.deep.include({ allowForkPullRequests: true });
    expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: 2 } })).status).to.equal(200);
    const audit = await svc.post<{ events: { action: string; target: string }[] }>('/listAuditEvents', {});
    expect(audit.body.events.filter((e) => e.action === 'github_repository.updated').map((e) => e.target)).to.deep.equal(['github.com/acme/widgets']);
  });

  it('another organisation sees no such repository; the owner moves it once its queues are gone', async () => {
    const other = await svc.addOrg('platform-team');
    expect((await svc.post('/getGitHubRepository', { repo }, { token: other.token })).status).to.equal(404);
    expect((await svc.post('/updateGitHubRepository', { repo, allowForkPullRequests: false }, { token: other.token })).status).to.equal(404);
    expect((await svc.post<ErrorBody>('/updateGitHubRepository', { repo, organization: 'nobody' })).body.error.code).to.equal('organization_not_found');

    const busy = await svc.post<ErrorBody>('/updateGitHubRepository', { repo, organization: 'platform-team' });
    expect([busy.status, busy.body.error.code]).to.deep.equal([409, 'repository_has_queues']);
    for (const n of [1, 2]) await svc.post('/cancelPullRequest', { ...ref, pr: { number: n } });
    expect((await svc.post('/deleteQueue', ref)).status).to.equal(200);
    const moved = await svc.post('/updateGitHubRepository', { repo, organization: 'platform-team' });
    expect(moved.status).to.equal(200);
    expect(moved.body).to.deep.include({ organization: 'platform-team' });
    expect((await svc.post('/getGitHubRepository', { repo })).status).to.equal(404);
    expect((await svc.post('/getGitHubRepository', { repo }, { token: other.token })).body).to.deep.include({
      organization: 'platform-team',
      allowForkPullRequests: true,
    });
    expect((await svc.post('/createQueue', ref, { token: other.token })).status).to.equal(200);
    expect((await svc.post('/createQueue', { repo, targetBranch: 'main' })).status).to.equal(404);
  });
});
