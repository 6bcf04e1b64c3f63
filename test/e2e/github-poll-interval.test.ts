// The provider poll of a GitHub repository slows down while signed webhook deliveries for it
// arrive, and comes back when they stop (GitHub double, real workers). Observed through state:
// the sync job's completed runs (operator metrics) and the pull request reads the double served.
import { expect } from 'chai';
import { waitFor } from '../../scripts/lib/wait.js';
import { payloadFor } from '../doubles/github/webhook-payloads.js';
import { GitHubHarness, repo } from './github-support.js';
import type { GitHubDouble } from '../doubles/github/github-double.js';

describe('GitHub: a slower poll while webhooks arrive (end to end)', function () {
  this.timeout(90_000);
  let h: GitHubHarness;

  beforeEach(async () => {
    h = await GitHubHarness.start({
      // The poller runs every second; while deliveries arrive it would poll only hourly; 3 s of
      // silence bring the 1 s poll back. Nothing else reads the pull request (no reconciler pass).
      env: { PROVIDER_POLL_SECONDS: '1', GITHUB_WEBHOOK_POLL_SECONDS: '3600', GITHUB_WEBHOOK_QUIET_SECONDS: '3', RECONCILE_SECONDS: '3600' },
    });
  });

  afterEach(async () => {
    await h.close();
  });

  const completed = async (queue: string): Promise<number> =>
    (await h.svc.ctx.metrics.jobsCompleted.get()).values.find((v) => v.labels.queue === queue)?.value ?? 0;
  /** Reads of pull request #1: the poller's (webhook-triggered syncs happen only on pull_request and push events). */
  const pullReads = (): number => h.double.requests.filter((r) => r.method === 'GET' && r.path === `/repos/${repo.owner}/${repo.name}/pulls/1`).length;
  /**
   * A signed delivery for the repository that changes nothing: a new status (GitHub gives each its
   * own id) on a commit nobody tests. Resolves once processed.
   */
  let statusId = 9_000_000;
  const unrelatedStatus = async (): Promise<void> => {
    const before = await completed('github-webhook');
    const payload = payloadFor(
      'status',
      undefined,
      { owner: repo.owner, name: repo.name, installationId: 1 },
      { id: ++statusId, sha: 'f'.repeat(40), state: 'success', context: 'elsewhere' },
    );
    expect(await h.double.deliver('status', payload as Parameters<GitHubDouble['deliver']>[1])).to.equal(202);
    await waitFor('the delivery processed', async () => (await completed('github-webhook')) > before);
  };

  it('skips polls while deliveries arrive and polls at the normal interval again once they stop', async () => {
    await h.configure({ createPrsForTestingBranches: false });
    await h.pr(1);
    await h.submit(1);
    await h.untilState(1, ['testing']);
    await waitFor('the poller reads the pull request', async () => pullReads() > 0);

    // Deliveries keep arriving, one after the other (well within the quiet time of each other).
    await unrelatedStatus();
    let sending = true;
    const sender = (async () => {
      while (sending) await unrelatedStatus();
    })();
    // A poller run that started before the delivery was recorded may still poll; the ones after it may not.
    const started = await completed('sync');
    await waitFor('the poller run in progress ended', async () => (await completed('sync')) > started);
    const syncs = await completed('sync');
    const reads = pullReads();
    await waitFor('three more poller runs', async () => (await completed('sync')) >= syncs + 3, { timeoutMs: 20_000 });
    expect(pullReads(), 'no poll read the pull request while deliveries arrived').to.equal(reads);

    sending = false;
    await sender;
    await waitFor('the poll is back after the quiet time', async () => pullReads() > reads, { timeoutMs: 20_000 });
    const back = pullReads();
    await waitFor('and keeps polling at the normal interval', async () => pullReads() >= back + 2, { timeoutMs: 20_000 });
  });
});
