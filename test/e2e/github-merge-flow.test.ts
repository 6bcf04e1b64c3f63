// The merge queue on a GitHub repository (the GitHub double), end to end through webhooks.
import { expect } from 'chai';
import type { MergeMethod } from '../../shared/merge-queue/domain/model.js';
import { branchSha, listCommits, pushToPullRequest, treeOf } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { GitHubHarness, repo } from './github-support.js';
import { READ_BACK_AFTER_MS } from '../../shared/github/services/ci-results.js';
import { payloadFor } from '../doubles/github/webhook-payloads.js';
import { QUEUE_STATUS_CONTEXT, TESTED_TREE_CONTEXT } from '../../shared/github/services/pull-request-feedback.js';

describe('merge queue on GitHub (end to end, through webhooks)', function () {
  this.timeout(90_000);
  let h: GitHubHarness;

  afterEach(async () => {
    await h.close();
  });

  describe('with a GitHub App', () => {
    beforeEach(async () => {
      h = await GitHubHarness.start();
    });

    it('statuses: a good pull request merges, shows merged on GitHub, and its test branch is deleted', async () => {
      await h.configure({});
      h.runCi('statuses');
      await h.pr(1);
      await h.submit(1);
      const merged = await h.untilState(1, ['merged']);
      const runId = merged.timeline.find((t) => t.testRunId)?.testRunId;
      expect(await h.onGitHub(1)).to.include({ state: 'closed', merged: true });
      expect(await h.mainSubjects()).to.deep.equal(['Change 1 (#1)']);
      await waitFor('test branch deleted', async () => (await branchSha(h.fx, `trunk-merge/pr-1/${runId}`)) === null);
      const details = await h.svc.post<{ statusChecks: { context: string; state: string }[]; checkSuites: unknown[] }>('/getMergeQueueTestingDetails', {
        repo,
        targetBranch: 'main',
        testRunId: runId,
      });
      expect(details.body.statusChecks.map((s) => [s.context, s.state])).to.deep.equal([['ci/test', 'SUCCESS']]);
      expect(details.body.checkSuites, 'commit statuses are no check runs').to.deep.equal([]);
    });

    it('check runs: testing details list the check suite of the test branch head with its check runs, as they progress', async () => {
      await h.configure({});
      await h.pr(1);
      await h.submit(1);
      const testing = await h.untilState(1, ['testing']);
      const runId = testing.timeline.find((t) => t.testRunId)?.testRunId ?? '';
      const head = await waitFor('test branch pushed', async () => (await branchSha(h.fx, `trunk-merge/pr-1/${runId}`)) ?? undefined);
      const details = async () =>
        (
          await h.svc.post<{ checkSuites: { checkRuns: Record<string, string>[] }[] }>('/getMergeQueueTestingDetails', {
            repo,
            targetBranch: 'main',
            testRunId: runId,
          })
        ).body.checkSuites;
      const report = async (body: Record<string, unknown>) => {
        const res = await fetch(`${h.double.apiUrl}/repos/${repo.owner}/${repo.name}/check-runs`, {
          method: 'POST',
          headers: { authorization: 'token ghp_token-of-the-ci-system', 'content-type': 'application/json' },
          body: JSON.stringify({ head_sha: head, ...body }),
        });
        expect(res.status).to.equal(201);
        return ((await res.json()) as { id: number }).id;
      };
      const lint = await report({ name: 'lint', status: 'in_progress', details_url: 'https://ci.example/lint' });
      await waitFor('lint listed', async () => (await details()).length > 0);
      expect(await details()).to.deep.equal([{ checkRuns: [{ name: 'lint', url: `https://github.com/acme/widgets/runs/${lint}`, status: 'IN_PROGRESS' }] }]);
      const test = await report({ name: 'ci/test', status: 'completed', conclusion: 'success' });
      await h.untilState(1, ['merged']);
      expect(await details()).to.deep.equal([
        {
          checkRuns: [
            { name: 'lint', url: `https://github.com/acme/widgets/runs/${lint}`, status: 'IN_PROGRESS' },
            { name: 'ci/test', url: `https://github.com/acme/widgets/runs/${test}`, status: 'COMPLETED', conclusion: 'SUCCESS' },
          ],
        },
      ]);
    });

    it('check runs: a bad pull request fails and stays open on GitHub', async () => {
      await h.configure({});
      h.runCi('check-runs');
      await h.pr(1, { BAD: 'breaks the build\n' });
      await h.submit(1);
      const failed = await h.untilState(1, ['failed']);
      expect(failed.timeline[0]?.reason).to.equal('test_run_required_status_failed');
      expect(await h.onGitHub(1)).to.include({ state: 'open', merged: false });
      expect(await branchSha(h.fx, 'main')).to.equal(h.fx.initialSha);
    });

    it('check runs: a batch with one culprit bisects; the others merge, the culprit fails', async () => {
      await h.configure({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 60, concurrency: 2, bisectionConcurrency: 2 });
      h.runCi('check-runs');
      for (let n = 1; n <= 3; n++) await h.pr(n, n === 2 ? { BAD: 'breaks the build\n' } : {});
      for (let n = 1; n <= 3; n++) await h.submit(n);
      const states = [];
      for (let n = 1; n <= 3; n++) states.push((await h.untilState(n, ['merged', 'failed', 'cancelled'], 60_000)).state);
      expect(states).to.deep.equal(['merged', 'failed', 'merged']);
      expect(await h.mainSubjects()).to.deep.equal(['Change 1 (#1)', 'Change 3 (#3)']);
      expect(await h.onGitHub(2)).to.include({ state: 'open', merged: false });
      expect(h.ci?.runs.some((r) => r.branch.endsWith('-bisection'))).to.equal(true);
    });

    it('an urgent pull request preempts a running one, which restarts behind it', async () => {
      await h.configure({ concurrency: 1 });
      let release = false;
      h.runCi('statuses', (files) => (release || 'f2.txt' in files ? 'success' : null));
      await h.pr(1);
      await h.pr(2);
      await h.submit(1);
      await h.untilState(1, ['testing']);
      await h.submit(2, { priority: 'urgent' });
      await waitFor('PR #1 interrupted', async () => (await h.get(1)).timeline.some((t) => t.reason === 'skip_the_line_interrupted'));
      await h.untilState(2, ['merged']);
      release = true;
      await h.untilState(1, ['merged']);
      expect(await h.mainSubjects()).to.deep.equal(['Change 2 (#2)', 'Change 1 (#1)']);
    });

    it('a push to a queued pull request cancels it (pull_request synchronize)', async () => {
      await h.configure({});
      h.runCi('statuses', () => null);
      await h.pr(1);
      await h.submit(1);
      await h.untilState(1, ['testing']);
      await pushToPullRequest(h.fx, 1, [{ message: 'more', files: { 'more.txt': 'more\n' } }]);
      expect(await h.double.deliver('pull_request', await h.double.pullPayload(repo.owner, repo.name, 1, 'synchronize'))).to.equal(202);
      const cancelled = await h.untilState(1, ['cancelled']);
      expect(cancelled.timeline[0]?.reason).to.equal('pr_pushed_to');
    });

    // The entry ends merged as a merge outside the queue, whichever sees it first: the
    // pull_request webhook's sync, or the push webhook's planning pass (whose crash recovery
    // takes only entries the queue merges from as its own interrupted merges).
    it('a pull request merged outside the queue ends merged and leaves the queue', async () => {
      await h.configure({});
      h.runCi('statuses', () => null);
      await h.pr(1);
      await h.submit(1);
      await h.untilState(1, ['testing']);
      const res = await fetch(`${h.double.apiUrl}/repos/${repo.owner}/${repo.name}/pulls/1/merge`, {
        method: 'PUT',
        headers: { authorization: 'token ghp_token-of-the-ci-system', 'content-type': 'application/json' },
        body: JSON.stringify({ merge_method: 'merge' }),
      });
      expect(res.status).to.equal(200);
      const merged = await h.untilState(1, ['merged']);
      expect(merged.timeline[0]?.reason).to.equal('manual_merge');
      expect(await h.onGitHub(1)).to.include({ state: 'closed', merged: true });
      expect(await h.mainSubjects()).to.deep.equal(['Merge pull request #1 from change-1']);
    });

    for (const method of ['merge_commit', 'squash', 'rebase'] as MergeMethod[]) {
      it(`${method}: the tested tree lands and the pull request shows merged`, async () => {
        await h.configure({ mergeMethod: method });
        h.runCi('check-runs');
        await h.pr(1);
        await h.submit(1);
        const merged = await h.untilState(1, ['merged']);
        // GitHub marks a pull request merged by a push once it has processed the push, as the
        // double does after answering it: the queue may record the merge first.
        await waitFor('GitHub shows #1 merged', async () => {
          const pr = await h.onGitHub(1);
          return pr.state === 'closed' && pr.merged ? pr : undefined;
        });
        const runId = merged.timeline.find((t) => t.testRunId)?.testRunId;
        const tested = h.ci?.runs.find((r) => r.branch === `trunk-merge/pr-1/${runId}`);
        expect(await treeOf(h.fx, 'main')).to.equal(await treeOf(h.fx, tested?.sha ?? ''));
        const [head] = await listCommits(h.fx, 'main', { limit: 1 });
        expect(head?.subject).to.equal({ merge_commit: 'Merge pull request #1 from change-1', squash: 'Change 1 (#1)', rebase: 'Change 1' }[method]);
      });
    }

    it('without queue or trunk.yaml statuses, the rulesets and branch protection of the target decide', async () => {
      await h.configure({ requiredStatuses: [] });
      h.double.protection.set('acme/widgets/main', { rulesets: ['lint'], classic: ['ci/test'] });
      h.runCi('check-runs');
      await h.pr(1);
      await h.submit(1);
      const testing = await h.untilState(1, ['testing']);
      const runId = testing.timeline.find((t) => t.testRunId)?.testRunId;
      const details = await waitFor('run built', async () => {
        const d = await h.svc.post<{ testBranchSha: string; requiredStatuses: string[]; requiredStatusesSource: string }>('/getMergeQueueTestingDetails', {
          repo,
          targetBranch: 'main',
          testRunId: runId,
        });
        return d.body.testBranchSha ? d.body : undefined;
      });
      expect(details.requiredStatuses).to.deep.equal(['ci/test', 'lint']);
      expect(details.requiredStatusesSource).to.equal('repo_provider_branch_protection');
      // ci/test alone does not merge it; lint (a status from another CI) completes the set.
      await waitFor('ci/test recorded', async () => {
        const d = await h.svc.post<{ statusChecks: { context: string }[] }>('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: runId });
        return d.body.statusChecks.some((c) => c.context === 'ci/test');
      });
      expect((await h.get(1)).state).to.equal('testing');
      const res = await fetch(`${h.double.apiUrl}/repos/acme/widgets/statuses/${details.testBranchSha}`, {
        method: 'POST',
        headers: { authorization: 'token ghp_token-of-the-ci-system', 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'success', context: 'lint' }),
      });
      expect(res.status).to.equal(201);
      await h.untilState(1, ['merged']);
    });

    it('statusCheckEnabled: the pull request head shows its queue state as a commit status', async () => {
      await h.configure({ statusCheckEnabled: true, commentsEnabled: false });
      let release = false;
      h.runCi('statuses', (files) => (release ? ('BAD' in files ? 'failure' : 'success') : null));
      const good = await h.pr(1);
      const bad = await h.pr(2, { BAD: 'breaks the build\n' });
      await h.submit(1);
      await h.submit(2);
      await h.untilState(1, ['testing']);
      const publisher = h.svc.ctx.github?.pullRequestFeedback;
      if (!publisher) throw new Error('GitHub is configured');
      const queueStatuses = (sha: string) => h.double.statuses.filter((st) => st.sha === sha && st.context === QUEUE_STATUS_CONTEXT).map((st) => st.state);
      await waitFor('pending published', async () => {
        await publisher.publish();
        return queueStatuses(good).includes('pending') && queueStatuses(bad).includes('pending');
      });
      release = true;
      await h.untilState(1, ['merged']);
      await h.untilState(2, ['failed']);
      await publisher.publish();
      expect(queueStatuses(good).at(-1)).to.equal('success');
      expect(queueStatuses(bad).at(-1)).to.equal('failure');
      // The commit the merge made on main says its exact tree was tested, as verifyCommit does.
      const tested = h.double.statuses.filter((st) => st.context === TESTED_TREE_CONTEXT);
      expect(tested.map((st) => st.state)).to.deep.equal(['success']);
      const verified = await h.svc.post<{ tested: boolean; prNumber: number }>('/verifyCommit', { repo, sha: tested[0]!.sha });
      expect(verified.body).to.deep.include({ tested: true, prNumber: 1 });
      // Published states are not posted again.
      const posted = h.double.statuses.length;
      expect(await publisher.publish()).to.equal(0);
      expect(h.double.statuses.length).to.equal(posted);
    });

    it('commentsEnabled: one comment per pull request, edited in place as its state changes', async () => {
      await h.configure({ statusCheckEnabled: false, commentsEnabled: true });
      let release = false;
      h.runCi('statuses', () => (release ? 'failure' : null));
      await h.pr(1);
      await h.submit(1);
      await h.untilState(1, ['testing']);
      const publisher = h.svc.ctx.github?.pullRequestFeedback;
      if (!publisher) throw new Error('GitHub is configured');
      const comments = () => h.double.comments.filter((c) => c.issue === 1);
      await waitFor('comment posted', async () => {
        await publisher.publish();
        return comments().some((c) => c.body.includes('Testing in the merge queue'));
      });
      release = true;
      await h.untilState(1, ['failed']);
      await publisher.publish();
      expect(comments()).to.have.length(1);
      expect(comments()[0]?.edits).to.be.at.least(1);
      expect(comments()[0]?.body).to.contain('Failed in the merge queue: test_run_required_status_failed');
      // The verdict on the failure, in the same comment: this repository uploads no test results.
      expect(comments()[0]?.body).to.contain(
        '**Was it this pull request’s fault?** Verdict: not decided — a required status failed and the repository uploads no test results (rule `no_evidence`, test run ',
      );
      expect(comments()[0]?.body).to.contain('What would decide it: test results (JUnit) uploaded for the test branch, which would show which tests failed.');
      expect(h.double.statuses.filter((st) => st.context === QUEUE_STATUS_CONTEXT)).to.deep.equal([]);
    });

    it('statusCheckEnabled and commentsEnabled off: nothing is posted on the pull request', async () => {
      await h.configure({ statusCheckEnabled: false, commentsEnabled: false });
      h.runCi('check-runs');
      const head = await h.pr(1);
      await h.submit(1);
      await h.untilState(1, ['testing']);
      expect(await h.svc.ctx.github?.pullRequestFeedback.publish()).to.equal(0);
      await h.untilState(1, ['merged']);
      expect(await h.svc.ctx.github?.pullRequestFeedback.publish()).to.equal(0);
      expect(h.double.statuses.filter((st) => st.sha === head)).to.deep.equal([]);
      expect(h.double.comments).to.deep.equal([]);
    });

    it('lost status deliveries: the waiting run is read back from GitHub and the pull request merges', async () => {
      await h.configure({});
      h.double.faults.lostEvents.add('status');
      const ci = h.runCi('statuses');
      await h.pr(1);
      await h.submit(1);
      await waitFor('CI answered', async () => ci.runs.length > 0);
      const ciResults = h.svc.ctx.github?.ciResults;
      if (!ciResults) throw new Error('GitHub is configured');
      // Not before the run has waited: a result still on its way is not fetched.
      expect(await ciResults.readBackWaitingRuns(new Date())).to.equal(0);
      expect(await ciResults.readBackWaitingRuns(new Date(Date.now() + READ_BACK_AFTER_MS + 1000))).to.equal(1);
      await h.untilState(1, ['merged']);
    });

    it('lost check_run deliveries: a completed check_suite reads the check runs back', async () => {
      await h.configure({});
      h.double.faults.lostEvents.add('check_run');
      const ci = h.runCi('check-runs');
      await h.pr(1);
      await h.submit(1);
      await waitFor('CI answered', async () => ci.runs.length > 0);
      const [run] = ci.runs;
      const example = payloadFor('check_suite', 'completed', { owner: repo.owner, name: repo.name, installationId: 1 }, {});
      const suite = {
        ...(example.check_suite as Record<string, unknown>),
        head_sha: run?.sha,
        head_branch: run?.branch,
        status: 'completed',
        conclusion: 'success',
      };
      expect(await h.double.deliver('check_suite', { ...example, check_suite: suite })).to.equal(202);
      const merged = await h.untilState(1, ['merged']);
      const runId = merged.timeline.find((t) => t.testRunId)?.testRunId;
      const details = await h.svc.post<{ checkSuites: { checkRuns: { name: string; status: string; conclusion?: string }[] }[] }>(
        '/getMergeQueueTestingDetails',
        { repo, targetBranch: 'main', testRunId: runId },
      );
      expect(
        details.body.checkSuites.map((s) => s.checkRuns.map((r) => [r.name, r.status, r.conclusion])),
        'read back',
      ).to.deep.equal([[['ci/test', 'COMPLETED', 'SUCCESS']]]);
    });

    it('a merge GitHub refuses fails the pull request with a reason that quotes GitHub', async () => {
      await h.configure({ mergeMethod: 'rebase' });
      h.double.faults.mergeRefusal = { status: 405, message: 'Repository rule violations found' };
      h.runCi('check-runs');
      await h.pr(1);
      await h.submit(1);
      const failed = await h.untilState(1, ['failed']);
      expect(failed.timeline[0]).to.include({
        reason: 'github_api_merge_pr_failed',
        detail: 'GitHub refused to merge #1 (405): Repository rule violations found',
      });
      expect(await h.onGitHub(1)).to.include({ state: 'open', merged: false });
    });

    it('a secondary rate limit in the middle of a merge is waited out and the merge completes once', async () => {
      await h.configure({ mergeMethod: 'squash' });
      h.double.faults.secondaryLimit = { method: 'PUT', pathIncludes: '/merge', remaining: 1, retryAfterSeconds: 1 };
      h.runCi('statuses');
      await h.pr(1);
      await h.submit(1);
      await h.untilState(1, ['merged']);
      expect(h.double.requestsTo('PUT', '/pulls/1/merge').map((r) => r.status)).to.deep.equal([403, 200]);
      expect(await h.mainSubjects()).to.deep.equal(['Change 1 (#1)']);
    });
  });

  describe('with a plain token', () => {
    beforeEach(async () => {
      h = await GitHubHarness.start({ auth: 'token' });
    });

    it('a good pull request merges and shows merged', async () => {
      await h.configure({});
      h.runCi('statuses');
      await h.pr(1);
      await h.submit(1);
      await h.untilState(1, ['merged']);
      expect(await h.onGitHub(1)).to.include({ state: 'closed', merged: true });
      expect(h.double.requestsTo('POST', '/app/installations')).to.deep.equal([]);
    });
  });
});
