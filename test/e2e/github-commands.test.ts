// commandsEnabled on a GitHub repository (the GitHub double), end to end: people comment on pull
// requests, GitHub delivers issue_comment, and the queue acts, reacts or answers.
import { expect } from 'chai';
import { waitFor } from '../../scripts/lib/wait.js';
import { DbGitHubDeliveryRepository } from '../../shared/github/store/github-delivery-repository.js';
import type { CommentRecord } from '../doubles/github/github-double.js';
import { GitHubHarness, ref, repo, type Submitted } from './github-support.js';
import { REPLIES_PER_WINDOW } from '../../shared/github/services/pull-request-commands.js';
import { COMMAND_USAGE } from '../../shared/github/domain/comment-command.js';

describe('comment commands on GitHub (end to end, through webhooks)', function () {
  this.timeout(90_000);
  let h: GitHubHarness;

  beforeEach(async () => {
    h = await GitHubHarness.start();
    h.double.permissions.set('acme/widgets:alice', 'write');
    h.double.permissions.set('acme/widgets:carol', 'admin');
  });

  afterEach(async () => {
    await h.close();
  });

  const comment = (n: number, login: string, body: string, opts: { writtenAt?: Date } = {}) => h.double.comment(repo.owner, repo.name, n, login, body, opts);

  /** The pull request's entry once it has one (getSubmittedPullRequest answers 404 before). */
  const queued = (n: number, states: string[], timeoutMs = 15_000): Promise<Submitted> =>
    waitFor(
      `PR #${n} in ${states.join('/')}`,
      async () => {
        const res = await h.svc.post<Submitted>('/getSubmittedPullRequest', { ...ref, pr: { number: n }, includeTimeline: true });
        return res.status === 200 && states.includes(res.body.state) ? res.body : undefined;
      },
      { timeoutMs },
    );

  const replyTo = (n: number, login: string): Promise<CommentRecord> =>
    waitFor(`a reply to @${login} on #${n}`, async () => h.double.comments.find((c) => c.issue === n && c.body.startsWith(`@${login}:`)));

  const notQueued = async (n: number) => {
    const res = await h.svc.post<{ error: { code: string } }>('/getSubmittedPullRequest', { ...ref, pr: { number: n } });
    expect(res.status, JSON.stringify(res.body)).to.equal(404);
  };

  it('a writer’s `/trunk merge` queues the pull request, which merges; the comment gets a 👍 and the history names the commenter', async () => {
    await h.configure({});
    h.runCi('check-runs');
    await h.pr(1);
    const { comment: command } = await comment(1, 'alice', 'Looks good.\n\n/trunk merge');
    const merged = await queued(1, ['merged']);
    expect(merged.timeline.at(-1)?.detail).to.match(new RegExp(`^submitted at [0-9a-f]{12} by @alice \\(comment ${command.id}\\)$`));
    expect(await h.onGitHub(1)).to.include({ state: 'closed', merged: true });
    expect(await h.mainSubjects()).to.deep.equal(['Change 1 (#1)']);
    expect(command.reactions).to.deep.equal(['+1']);
    expect(
      h.double.comments.filter((c) => c.author !== 'alice' && c.author !== 'openmq-merge-queue[bot]'),
      'no replies by anyone else',
    ).to.deep.equal([]);
    expect(
      h.double.comments.filter((c) => c.body.startsWith('@')),
      'no replies',
    ).to.deep.equal([]);
  });

  it("`/trunk merge` on the top of a stack queues the stack in its bottom's queue; it is tested once and every member lands in order and shows merged", async () => {
    await h.configure({});
    h.runCi('check-runs');
    await h.pr(1);
    await h.pr(2, {}, { on: 1 });
    await h.pr(3, {}, { on: 2 });
    await comment(3, 'alice', '/trunk merge');
    // Three GitHub merges, each after a retarget, verified one by one.
    for (const n of [1, 2, 3]) await queued(n, ['merged'], 60_000);
    expect(await h.mainSubjects()).to.deep.equal(['Change 1 (#1)', 'Change 2 (#2)', 'Change 3 (#3)']);
    for (const n of [1, 2, 3]) expect(await h.onGitHub(n), `#${n}`).to.include({ state: 'closed', merged: true });
    // One test run for the three; the members above the bottom were retargeted onto main first.
    const entries = await Promise.all([1, 2, 3].map((n) => h.get(n)));
    expect(new Set(entries.map((e) => e.timeline.find((t) => t.state === 'testing')?.testRunId)).size).to.equal(1);
    expect(h.double.retargets.map((r) => [r.number, r.from, r.to])).to.deep.equal([
      [2, 'change-1', 'main'],
      [3, 'change-2', 'main'],
    ]);
  });

  it("a maintainer's `/trunk merge --priority=urgent` preempts the running pull request, a writer's is refused; `/trunk cancel` takes one out", async () => {
    h.double.permissions.set('acme/widgets:mona', 'maintain');
    await h.configure({ concurrency: 1 });
    let release = false;
    h.runCi('statuses', (files) => (release || 'f2.txt' in files ? 'success' : null));
    await h.pr(1);
    await h.pr(2);
    await h.pr(3);
    await h.submit(1);
    await h.untilState(1, ['testing']);
    // Urgent preempts running tests: the API keeps it for admin tokens, GitHub for admin and maintain.
    await comment(2, 'alice', '/trunk merge --priority=urgent');
    expect((await replyTo(2, 'alice')).body).to.equal(
      '@alice: `/trunk merge --priority=urgent` needs admin or maintain permission on acme/widgets; you have write permission.',
    );
    await notQueued(2);
    await comment(2, 'mona', '/trunk merge --priority=urgent');
    await waitFor('PR #1 interrupted', async () => (await h.get(1)).timeline.some((t) => t.reason === 'skip_the_line_interrupted'));
    await h.untilState(2, ['merged']);
    await comment(3, 'carol', '/trunk merge --priority low');
    expect((await queued(3, ['not_ready', 'pending', 'testing'])).state).to.be.a('string');
    const { comment: cancel } = await comment(3, 'alice', '/trunk cancel');
    const cancelled = await h.untilState(3, ['cancelled']);
    expect(cancelled.timeline[0]).to.include({ reason: 'user_requested', detail: `cancelled by @alice (comment ${cancel.id})` });
    await waitFor('👍 on the cancel comment', async () => cancel.reactions.includes('+1'));
    release = true;
    await h.untilState(1, ['merged']);
    expect(await h.mainSubjects()).to.deep.equal(['Change 2 (#2)', 'Change 1 (#1)']);
  });

  it('without write permission, or with a command it does not know, the commenter gets a reply saying why and nothing is queued', async () => {
    await h.configure({});
    await h.pr(1);
    await comment(1, 'bob', '/trunk merge');
    expect((await replyTo(1, 'bob')).body).to.equal('@bob: `/trunk merge` needs write permission on acme/widgets; you have read permission.');
    h.double.permissions.set('acme/widgets:dave', 'none');
    await comment(1, 'dave', '/trunk cancel');
    expect((await replyTo(1, 'dave')).body).to.equal('@dave: `/trunk cancel` needs write permission on acme/widgets; you have no permission.');
    await comment(1, 'alice', '/trunk please');
    expect((await replyTo(1, 'alice')).body).to.equal(
      '@alice: `please` is not a command. Use `/trunk merge`, `/trunk merge --priority=<urgent|high|medium|low|0–255>` or `/trunk cancel`.',
    );
    await notQueued(1);
    // The queue's own refusal, quoted: a draft cannot be queued.
    await h.pr(2);
    await comment(2, 'alice', '/trunk merge --priority=asap');
    expect((await replyTo(2, 'alice')).body).to.match(
      /^@alice: `\/trunk merge --priority=asap` was not carried out: priority must be one of .* \(`invalid_priority`\)\.$/,
    );
    await comment(2, 'carol', '/trunk cancel');
    expect((await replyTo(2, 'carol')).body).to.match(/^@carol: `\/trunk cancel` was not carried out: .* \(`pull_request_not_submitted`\)\.$/);
    await notQueued(2);
    // The replies were delivered back as issue comments by the App, which are never commands.
    expect(h.double.comments.filter((c) => c.author === 'openmq-merge-queue[bot]')).to.have.length(5);
  });

  it('enqueueingLabel: adding the label queues the pull request and removing it cancels it; without write permission the labeller gets a reply', async () => {
    await h.configure({ enqueueingLabel: 'merge-me' });
    h.runCi('statuses', () => null);
    const deliveries = new DbGitHubDeliveryRepository(h.svc.ctx.db);
    const processed = (deliveryId: string) => waitFor('the delivery processed', async () => (await deliveries.pending(deliveryId)) === null);
    await h.pr(1);
    await h.pr(2);
    await processed((await h.double.label(repo.owner, repo.name, 1, 'alice', 'bug', 'labeled')).deliveryId);
    await notQueued(1);
    await h.double.label(repo.owner, repo.name, 1, 'alice', 'Merge-Me', 'labeled');
    const testing = await queued(1, ['testing']);
    expect(testing.timeline.at(-1)?.detail).to.match(/ by @alice \(label merge-me labeled\)$/);
    // Any other label is no command, but the queued pull request's labels are read again (a
    // schedule's exception labels: docs/merge-windows.md).
    await processed((await h.double.label(repo.owner, repo.name, 1, 'alice', 'hotfix', 'labeled')).deliveryId);
    const queue = await h.svc.ctx.mergeQueue.store.queues.find(h.svc.orgId, repo, 'main');
    const entry = await h.svc.ctx.mergeQueue.store.entries.findActiveByPr(queue!.id, 1);
    expect(entry?.prLabels).to.deep.equal(['bug', 'Merge-Me', 'hotfix']);
    await h.double.label(repo.owner, repo.name, 1, 'alice', 'Merge-Me', 'unlabeled');
    const cancelled = await h.untilState(1, ['cancelled']);
    expect(cancelled.timeline[0]).to.include({ reason: 'user_requested', detail: 'cancelled by @alice (label merge-me unlabeled)' });
    await h.double.label(repo.owner, repo.name, 2, 'bob', 'merge-me', 'labeled');
    expect((await replyTo(2, 'bob')).body).to.equal('@bob: adding the label `merge-me` needs write permission on acme/widgets; you have read permission.');
    // Removing the label from a pull request that is not queued is no request: no answer.
    await processed((await h.double.label(repo.owner, repo.name, 2, 'alice', 'merge-me', 'unlabeled')).deliveryId);
    await notQueued(2);
    expect(h.double.comments.filter((c) => c.body.startsWith('@alice'))).to.deep.equal([]);
  });

  it('answers one person at most REPLIES_PER_WINDOW times on a pull request; quoting never lets their text out of its code span', async () => {
    await h.configure({});
    await h.pr(1);
    const deliveries = new DbGitHubDeliveryRepository(h.svc.ctx.db);
    for (let i = 0; i < REPLIES_PER_WINDOW + 2; i++) {
      const { deliveryId } = await comment(1, 'mallory', '/trunk x` @acme/everyone [prize](https://evil.example) `');
      await waitFor('the delivery processed', async () => (await deliveries.pending(deliveryId)) === null);
    }
    const replies = h.double.comments.filter((c) => c.body.startsWith('@mallory:'));
    expect(replies).to.have.length(REPLIES_PER_WINDOW);
    expect(replies[0]!.body).to.equal(`@mallory: \`\` x\` \`\` is not a command. Use ${COMMAND_USAGE}.`);
  });

  it('a command whose signed time is older than a redelivery can be (a replayed body) changes nothing and gets no answer', async () => {
    await h.configure({});
    await h.pr(1);
    const writtenAt = new Date(Date.now() - 4 * 86_400_000);
    const { comment: command, deliveryId } = await comment(1, 'alice', '/trunk merge', { writtenAt });
    const deliveries = new DbGitHubDeliveryRepository(h.svc.ctx.db);
    await waitFor('the delivery processed', async () => (await deliveries.pending(deliveryId)) === null);
    await notQueued(1);
    expect(command.reactions).to.deep.equal([]);
    expect(h.double.comments).to.have.length(1);
  });

  it('commandsEnabled off: a command comment changes nothing and gets no answer', async () => {
    await h.configure({ commandsEnabled: false });
    await h.pr(1);
    const { comment: command, deliveryId } = await comment(1, 'alice', '/trunk merge');
    const deliveries = new DbGitHubDeliveryRepository(h.svc.ctx.db);
    await waitFor('the delivery processed', async () => (await deliveries.pending(deliveryId)) === null);
    await notQueued(1);
    expect(command.reactions).to.deep.equal([]);
    expect(h.double.comments).to.have.length(1);
  });
});
