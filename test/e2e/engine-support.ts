// Shared by the batching and parallel-mode end-to-end tests: one service with workers, one real
// git repository, a fake CI answering on trunk-merge/** branches, and a small client for the
// endpoints these tests read (every getMergeQueueTestingDetails body is checked against the
// OpenAPI document).
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, listCommits, readTree, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { startFakeCi, type FakeCi, type FakeCiOptions, type Verdict } from '../helpers/fake-ci.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { gitText } from '../../shared/providers/local/git-runner.js';
import type { PassSummary } from '../../shared/merge-queue/services/engine/engine-service.js';
import { planExclusively } from '../helpers/planning.js';

export const repo = DEFAULT_REPO;
export const ref = { repo, targetBranch: 'main' };
export const BASE_FILES = { 'README.md': '# widgets\n' };

export interface Timeline {
  state: string;
  reason: string;
  detail?: string;
  testRunId?: string;
}

export interface Submitted {
  id: string;
  state: string;
  verifiedByTestRun: string | null;
  restartCount: number;
  noBatch: boolean;
  /** Newest first. */
  timeline: Timeline[];
}

export interface Details {
  testBranch: string;
  testBranchSha: string;
  status: string;
  testedPullRequests: { prNumber: number; prUrl: string; title: string }[];
  dependentPrs: number[];
  impactedTargets?: string[];
  impactedTargetsForTestedPrs?: string[];
  /** Present once a JUnit upload is linked to the run. */
  testResults?: {
    uploads: number;
    runs: number;
    failed: number;
    failedTests: { id: string; name: string; classname: string | null; file: string | null; status: string; quarantined: boolean }[];
  };
}

export class Harness {
  ci: FakeCi | null = null;
  private heads = new Map<number, string>();

  private constructor(
    readonly svc: TestService,
    readonly fx: FixtureRepo,
    readonly queueId: string,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<Harness> {
    const svc = await startTestService({ startWorkers: true, env });
    const fx = await createRepo(svc.gitRoot, { repo, files: BASE_FILES });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    const queue = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main');
    return new Harness(svc, fx, queue!.id);
  }

  async close(): Promise<void> {
    await this.ci?.stop();
    this.ci = null;
    await this.svc.close();
  }

  async configure(settings: Record<string, unknown>): Promise<void> {
    const res = await this.svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], ...settings });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  /** A fake CI that fails every branch holding a file named BAD unless `decide` says otherwise. */
  runCi(
    decide: (files: Record<string, string>, info: { branch: string; seen: number }) => Verdict = (files) => ('BAD' in files ? 'failure' : 'success'),
    report?: FakeCiOptions['report'],
  ): FakeCi {
    this.ci = startFakeCi({
      fx: this.fx,
      repo,
      context: 'ci/test',
      decide,
      postStatus: async (body) => (await this.svc.post('/setCommitStatus', body)).status,
      ...(report ? { report, uploadReport: (body: { sha: string; branch: string; junit: string }) => this.uploadReport(body) } : {}),
    });
    return this.ci;
  }

  /** A JUnit report of a commit through the native upload; 200 once stored, 202 while it is processed. */
  async uploadReport(body: { sha: string; branch: string; junit: string }): Promise<number> {
    const fd = new FormData();
    fd.append('meta', JSON.stringify({ repo, org_url_slug: 'default', commit_sha: body.sha, branch: body.branch }));
    fd.append('junit', new Blob([body.junit]), 'junit.xml');
    const res = await fetch(`${this.svc.url}/v1/flaky-tests/upload`, { method: 'POST', body: fd, headers: { 'x-api-token': this.svc.token } });
    await res.arrayBuffer();
    return res.status === 202 ? 200 : res.status;
  }

  /** Pull request n adds f<n>.txt (and whatever `extra` holds). */
  async pr(n: number, extra: Record<string, string> = {}): Promise<string> {
    const { headSha } = await createPullRequest(this.fx, {
      number: n,
      commits: [{ message: `Change ${n}`, files: { [`f${n}.txt`]: `${n}\n`, ...extra } }],
      metadata: { title: `Change ${n}`, author: `dev${n}` },
    });
    this.heads.set(n, headSha);
    return headSha;
  }

  async submit(n: number, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await this.svc.post('/submitPullRequest', { ...ref, pr: { number: n }, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  async targets(n: number, impactedTargets: string[] | 'ALL'): Promise<void> {
    const res = await this.svc.post('/setImpactedTargets', { ...ref, pr: { number: n, sha: this.heads.get(n) }, impactedTargets });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  async get(n: number): Promise<Submitted> {
    const res = await this.svc.post<Submitted>('/getSubmittedPullRequest', { ...ref, pr: { number: n }, includeTimeline: true });
    expect(res.status).to.equal(200);
    return res.body;
  }

  async untilState(n: number, states: string[], timeoutMs = 30_000): Promise<Submitted> {
    return waitFor(
      `PR #${n} in ${states.join('/')}`,
      async () => {
        const s = await this.get(n);
        return states.includes(s.state) ? s : undefined;
      },
      { timeoutMs },
    );
  }

  /** Waits until every PR concluded; returns their final records in order. */
  async finals(prs: number[]): Promise<Submitted[]> {
    const out: Submitted[] = [];
    for (const n of prs) out.push(await this.untilState(n, ['merged', 'failed', 'cancelled']));
    return out;
  }

  async details(testRunId: string): Promise<Details> {
    const res = await this.svc.post<Details>('/getMergeQueueTestingDetails', { ...ref, testRunId });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expectOpenApiResponse('/getMergeQueueTestingDetails', res.body);
    return res.body;
  }

  /** Details once the run's branch is built (testBranchSha known). */
  async builtDetails(testRunId: string): Promise<Details> {
    return waitFor(`test branch of ${testRunId} built`, async () => {
      const d = await this.details(testRunId);
      return d.testBranchSha ? d : undefined;
    });
  }

  /** The run the PR is testing in now (from its newest `testing` timeline item). */
  async currentRun(n: number): Promise<string> {
    const s = await this.untilState(n, ['testing']);
    const runId = s.timeline.find((t) => t.state === 'testing')?.testRunId;
    expect(runId, `PR #${n} has a test run`).to.be.a('string');
    return runId!;
  }

  /** Every test run id a PR's timeline mentions, oldest first. */
  static runIds(s: Submitted): string[] {
    return [
      ...new Set(
        s.timeline
          .map((t) => t.testRunId)
          .filter((id): id is string => typeof id === 'string')
          .reverse(),
      ),
    ];
  }

  /** Test branches that exist in the repository now. */
  async testBranches(): Promise<string[]> {
    const out = await gitText(['for-each-ref', '--format=%(refname:strip=2)', 'refs/heads/trunk-merge/'], { gitDir: this.fx.dir });
    return out.split('\n').filter(Boolean);
  }

  /** Files on main that pull requests added (f<n>.txt), in PR order. */
  async mergedFiles(): Promise<string[]> {
    return Object.keys(await readTree(this.fx, 'main'))
      .filter((f) => /^f\d+\.txt$/.test(f))
      .sort((a, b) => Number(a.slice(1, -4)) - Number(b.slice(1, -4)));
  }

  /** Subjects of main's first-parent history since the initial commit, oldest first. */
  async mainSubjects(): Promise<string[]> {
    return (await listCommits(this.fx, 'main', { firstParent: true }))
      .map((c) => c.subject)
      .reverse()
      .slice(1);
  }

  /** One planning pass right now, the workers' paused meanwhile (for negative assertions: nothing may change). */
  planNow(): Promise<PassSummary> {
    return planExclusively(this.svc, this.queueId);
  }
}
