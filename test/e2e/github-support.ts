// The whole service against the GitHub double, driven the way GitHub drives it: the service is
// configured with a GitHub App (or a token) pointing at the double, the double delivers signed
// webhooks to POST /webhooks/github, and a fake CI watching trunk-merge/** pushes reports through
// GitHub's REST API (commit statuses or check runs), which the double turns into webhooks. The
// provider poller is slowed to an hour, so everything that happens, happens through webhooks.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, listCommits, makeGitRoot, removeGitRoot, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { startFakeCi, type FakeCi, type Verdict } from '../helpers/fake-ci.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';

export const repo = DEFAULT_REPO;
export const ref = { repo, targetBranch: 'main' };
export const WEBHOOK_SECRET = 'webhook-secret-of-the-tests';
const CI_TOKEN = 'ghp_token-of-the-ci-system';
export const QUEUE_TOKEN = 'ghp_token-of-the-queue-service';

export interface Submitted {
  state: string;
  restartCount: number;
  timeline: { state: string; reason: string; detail?: string; testRunId?: string }[];
}

export class GitHubHarness {
  ci: FakeCi | null = null;

  private constructor(
    readonly double: GitHubDouble,
    readonly svc: TestService,
    readonly fx: FixtureRepo & { initialSha: string },
    private readonly root: string,
  ) {}

  /** `auth: 'token'` configures GITHUB_TOKEN instead of a GitHub App. */
  static async start(opts: { auth?: 'app' | 'token'; env?: Record<string, string> } = {}): Promise<GitHubHarness> {
    const root = await makeGitRoot();
    const double = await startGitHubDouble(root, { tokens: [CI_TOKEN, QUEUE_TOKEN] });
    const fx = await createRepo(root, { repo, files: { 'README.md': '# widgets\n' } });
    const auth = opts.auth === 'token' ? { ...double.endpointEnv, GITHUB_TOKEN: QUEUE_TOKEN } : double.appEnv;
    const svc = await startTestService({
      startWorkers: true,
      env: {
        ...auth,
        GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
        PROVIDER_POLL_SECONDS: '3600',
        GITHUB_WEBHOOK_POLL_SECONDS: '3600',
        ...opts.env,
      },
    });
    double.webhook = { url: `${svc.url}/webhooks/github`, secret: WEBHOOK_SECRET };
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    return new GitHubHarness(double, svc, fx, root);
  }

  async close(): Promise<void> {
    await this.ci?.stop();
    // Like GitHub towards a stopped service: later deliveries fail (and are not redelivered).
    this.double.webhook = null;
    // A delivery still in flight would hold the service's HTTP server open through its shutdown.
    await this.double.deliveriesSettled();
    await this.svc.close();
    await this.double.close();
    await removeGitRoot(this.root);
    this.double.assertClean();
  }

  async configure(settings: Record<string, unknown>): Promise<void> {
    const res = await this.svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], ...settings });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  /**
   * CI reporting through GitHub: commit statuses or check runs named `ci/test` on the test branch
   * head. By default a branch holding a file named BAD fails.
   */
  runCi(as: 'statuses' | 'check-runs', decide: (files: Record<string, string>) => Verdict = (files) => ('BAD' in files ? 'failure' : 'success')): FakeCi {
    const api = this.double.apiUrl;
    this.ci = startFakeCi({
      fx: this.fx,
      repo,
      context: 'ci/test',
      decide,
      postStatus: async (b) => {
        const headers = { authorization: `token ${CI_TOKEN}`, 'content-type': 'application/json' };
        const res =
          as === 'statuses'
            ? await fetch(`${api}/repos/${repo.owner}/${repo.name}/statuses/${b.sha}`, {
                method: 'POST',
                headers,
                body: JSON.stringify({ state: b.state, context: b.context, target_url: b.targetUrl }),
              })
            : await fetch(`${api}/repos/${repo.owner}/${repo.name}/check-runs`, {
                method: 'POST',
                headers,
                body: JSON.stringify({
                  name: b.context,
                  head_sha: b.sha,
                  status: 'completed',
                  conclusion: b.state === 'success' ? 'success' : 'failure',
                  details_url: b.targetUrl,
                }),
              });
        await res.arrayBuffer();
        return res.status === 201 ? 200 : res.status;
      },
    });
    return this.ci;
  }

  /** Pull request n (base main) adds f<n>.txt and whatever `extra` holds; GitHub announces it. */
  /** Opens pull request N on main, or (`on`) stacked on pull request `on`: based on its head branch and built on its head. */
  async pr(n: number, extra: Record<string, string> = {}, opts: { on?: number } = {}): Promise<string> {
    const { headSha } = await createPullRequest(this.fx, {
      number: n,
      ...(opts.on === undefined ? {} : { base: `refs/pull/${opts.on}/head` }),
      commits: [{ message: `Change ${n}`, files: { [`f${n}.txt`]: `${n}\n`, ...extra } }],
      metadata: { title: `Change ${n}`, author: `dev${n}`, base: opts.on === undefined ? 'main' : `change-${opts.on}`, headBranch: `change-${n}` },
    });
    await this.double.deliver('pull_request', await this.double.pullPayload(repo.owner, repo.name, n, 'opened'));
    return headSha;
  }

  async submit(n: number, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await this.svc.post('/submitPullRequest', { ...ref, pr: { number: n }, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  async get(n: number): Promise<Submitted> {
    const res = await this.svc.post<Submitted>('/getSubmittedPullRequest', { ...ref, pr: { number: n }, includeTimeline: true });
    expect(res.status).to.equal(200);
    return res.body;
  }

  untilState(n: number, states: string[], timeoutMs = 30_000): Promise<Submitted> {
    return waitFor(
      `PR #${n} in ${states.join('/')}`,
      async () => {
        const s = await this.get(n);
        return states.includes(s.state) ? s : undefined;
      },
      { timeoutMs },
    );
  }

  /** The pull request as GitHub (the double's REST API) shows it. */
  async onGitHub(n: number): Promise<{ state: string; merged: boolean }> {
    const res = await fetch(`${this.double.apiUrl}/repos/${repo.owner}/${repo.name}/pulls/${n}`, { headers: { authorization: `token ${CI_TOKEN}` } });
    return (await res.json()) as { state: string; merged: boolean };
  }

  /** Subjects of main's first-parent history since the initial commit, oldest first. */
  async mainSubjects(): Promise<string[]> {
    return (await listCommits(this.fx, 'main', { firstParent: true }))
      .map((c) => c.subject)
      .reverse()
      .slice(1);
  }
}
