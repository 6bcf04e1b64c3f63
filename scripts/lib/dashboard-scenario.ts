// A service holding what every dashboard page shows, set up through the public API only: a
// queue on a real git repository with pull requests merged, failed, cancelled, testing, pending
// and not ready (the scenario reports CI statuses itself, as CI would); a second queue holding
// stacks — one tested as one run, one waiting on a member below that cannot merge; and a
// repository with a flaky test. Used by the browser tests and by `npm run screenshots`.
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import { createPullRequest, createRepo, pushToBranch } from './git-fixtures.js';
import { startTestService, type TestService } from './test-service.js';
import { waitFor } from './wait.js';

export const SCENARIO_REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const SCENARIO_BRANCH = 'main';
export const CI_CONTEXT = 'ci/test';

/** Pull requests of the scenario and the state each is left in (two test slots). */
export const PRS = {
  merged: 1,
  failed: 2,
  testing: 3,
  /** Tested at the same time on the predicted base holding #3. */
  testingOnTop: 4,
  notReady: 5,
  cancelled: 6,
  pending: 7,
} as const;

/** The queue holding stacks, on a repository of its own. */
export const STACK_REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'gadgets' };
/**
 * Its pull requests: #1 alone, then the stack #2 ← #3 ← #4 tested as one run on top of it, and
 * the stack #5 ← #6 not ready, #5 conflicting with main.
 */
export const STACK_PRS = { alone: 1, stack: [2, 3, 4], conflicted: [5, 6] } as const;

const TITLES: Record<number, string> = {
  1: 'Add the login page',
  2: 'Refactor billing totals',
  3: 'Speed up the search index',
  4: 'Fix typo in the README',
  5: 'Backport the cache fix',
  6: 'Experiment: new theme',
  7: 'Bump the lint rules',
};

export interface DashboardScenario {
  svc: TestService;
  queueRef: { repo: RepoRef; targetBranch: string };
  /** The queue of STACK_REPO (STACK_PRS). */
  stackQueueRef: { repo: RepoRef; targetBranch: string };
  org: string;
  /** html_url of the flaky test, as the flaky-tests API hands it out. */
  flakyTestUrl: string;
  /** Reports CI's verdict on the run testing `pr` (what a CI system does). */
  reportCi(pr: number, state: 'success' | 'failure'): Promise<void>;
  waitState(pr: number, state: string): Promise<void>;
  close(): Promise<void>;
}

interface Submitted {
  state: string;
  timeline: { testRunId?: string }[];
}

export async function startDashboardScenario(): Promise<DashboardScenario> {
  // No periodic provider poll or reconciler: every change comes from the scenario.
  const svc = await startTestService({ startWorkers: true, env: { PROVIDER_POLL_SECONDS: '3600', RECONCILE_SECONDS: '3600' } });
  try {
    return await populate(svc);
  } catch (err) {
    await svc.close();
    throw err;
  }
}

async function populate(svc: TestService): Promise<DashboardScenario> {
  const queueRef = { repo: SCENARIO_REPO, targetBranch: SCENARIO_BRANCH };
  const post = async <T>(op: string, body: unknown): Promise<T> => {
    const res = await svc.post<T>(op, body);
    if (res.status !== 200) throw new Error(`${op} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const fx = await createRepo(svc.gitRoot, { repo: SCENARIO_REPO, files: { 'README.md': '# widgets\n' } });
  for (const n of Object.values(PRS)) {
    await createPullRequest(fx, {
      number: n,
      commits: [{ message: TITLES[n]!, files: { [`pr-${n}.txt`]: `${n}\n` } }],
      metadata: { title: TITLES[n]!, author: n % 2 ? 'alice' : 'bob', ...(n === PRS.notReady ? { base: 'release' } : {}) },
    });
  }
  await post('/createQueue', { ...queueRef, concurrency: 2 });
  // The scenario's CI uploads test results for one run only: other failures need not wait for theirs.
  await post('/updateQueue', { ...queueRef, requiredStatuses: [CI_CONTEXT], testResultsWaitSeconds: 0 });

  const get = (pr: number) => post<Submitted>('/getSubmittedPullRequest', { ...queueRef, pr: { number: pr }, includeTimeline: true });
  const waitState = async (pr: number, state: string) => {
    await waitFor(`#${pr} ${state}`, async () => (await get(pr)).state === state, { timeoutMs: 20_000 });
  };
  const reportCi = async (pr: number, state: 'success' | 'failure') => {
    const sha = await waitFor(`#${pr}'s test branch built`, async () => {
      const s = await get(pr);
      const runId = s.state === 'testing' ? s.timeline.find((t) => t.testRunId)?.testRunId : undefined;
      if (!runId) return undefined;
      const d = await post<{ testBranchSha: string }>('/getMergeQueueTestingDetails', { ...queueRef, testRunId: runId });
      return d.testBranchSha || undefined;
    });
    await post('/setCommitStatus', { repo: SCENARIO_REPO, sha, context: CI_CONTEXT, state, targetUrl: `https://ci.example/runs/${pr}-${state}` });
  };

  // One at a time first, so #1 and #2 are each tested alone.
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.merged } });
  await reportCi(PRS.merged, 'success');
  await waitState(PRS.merged, 'merged');
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.failed } });
  await reportCi(PRS.failed, 'failure');
  await waitState(PRS.failed, 'failed');
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.cancelled } });
  await post('/cancelPullRequest', { ...queueRef, pr: { number: PRS.cancelled } });
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.testing } });
  await waitState(PRS.testing, 'testing');
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.testingOnTop } });
  await waitState(PRS.testingOnTop, 'testing');
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.pending } });
  await post('/submitPullRequest', { ...queueRef, pr: { number: PRS.notReady } });
  await waitState(PRS.pending, 'pending');
  await waitState(PRS.notReady, 'not_ready');

  const org = (await post<{ organization: { slug: string } }>('/getTokenInfo', {})).organization.slug;
  const flakyTestUrl = await uploadFlakyTest(svc, org);
  // CI's JUnit report of #2's failed run, uploaded with the test branch head: linked to that run.
  const failedRunId = (await get(PRS.failed)).timeline.find((t) => t.testRunId)?.testRunId;
  const failedRun = await post<{ testBranch: string; testBranchSha: string }>('/getMergeQueueTestingDetails', { ...queueRef, testRunId: failedRunId });
  await uploadReport(svc, org, failedRun.testBranchSha, failedRun.testBranch, { 'adds items to the cart': 'fail', 'empties the cart': 'pass' });
  const stackQueueRef = await populateStacks(svc, post);
  return { svc, queueRef, stackQueueRef, org, flakyTestUrl, reportCi, waitState, close: () => svc.close() };
}

/** The queue of STACK_REPO, as STACK_PRS describes it. */
async function populateStacks(svc: TestService, post: <T>(op: string, body: unknown) => Promise<T>): Promise<{ repo: RepoRef; targetBranch: string }> {
  const queueRef = { repo: STACK_REPO, targetBranch: SCENARIO_BRANCH };
  const fx = await createRepo(svc.gitRoot, { repo: STACK_REPO, files: { 'README.md': '# gadgets\n' } });
  const [bottom, middle, top] = STACK_PRS.stack;
  const [conflicted, onConflicted] = STACK_PRS.conflicted;
  const pr = async (n: number, title: string, below: number | null, files: Record<string, string>) => {
    await createPullRequest(fx, {
      number: n,
      ...(below === null ? {} : { base: `refs/pull/${below}/head` }),
      commits: [{ message: title, files }],
      metadata: { title, author: 'carol', base: below === null ? 'main' : `gadgets-${below}`, headBranch: `gadgets-${n}` },
    });
  };
  // #5 changes the README that main changes next: it conflicts, and so does #6 on top of it.
  await pr(conflicted, 'Rename the gadgets', null, { 'README.md': '# gizmos\n' });
  await pr(onConflicted, 'Gizmo docs', conflicted, { 'docs.txt': 'gizmos\n' });
  await pushToBranch(fx, 'main', [{ message: 'Describe the gadgets', files: { 'README.md': '# gadgets\n\nSmall, useful things.\n' } }]);
  await pr(STACK_PRS.alone, 'Add the gadget API', null, { 'api.txt': 'api\n' });
  await pr(bottom, 'Gadget types', null, { 'types.txt': 'types\n' });
  await pr(middle, 'Gadget client', bottom, { 'client.txt': 'client\n' });
  await pr(top, 'Gadget screen', middle, { 'screen.txt': 'screen\n' });
  await post('/createQueue', { ...queueRef, concurrency: 2 });
  await post('/updateQueue', { ...queueRef, requiredStatuses: [CI_CONTEXT] });
  const state = async (n: number) => (await post<Submitted>('/getSubmittedPullRequest', { ...queueRef, pr: { number: n } })).state;
  await post('/submitPullRequest', { ...queueRef, pr: { number: STACK_PRS.alone } });
  await waitFor(`#${STACK_PRS.alone} testing`, async () => (await state(STACK_PRS.alone)) === 'testing', { timeoutMs: 20_000 });
  await post('/submitPullRequest', { ...queueRef, pr: { number: top } });
  await post('/submitPullRequest', { ...queueRef, pr: { number: onConflicted } });
  for (const n of STACK_PRS.stack) await waitFor(`#${n} testing`, async () => (await state(n)) === 'testing', { timeoutMs: 20_000 });
  return queueRef;
}

function junit(results: Record<string, 'pass' | 'fail'>): string {
  const cases = Object.entries(results).map(([name, r]) =>
    r === 'pass'
      ? `<testcase classname="checkout.CartTest" name="${name}" file="src/checkout/cart.test.ts" time="0.2"/>`
      : `<testcase classname="checkout.CartTest" name="${name}" file="src/checkout/cart.test.ts" time="0.2"><failure message="expected 3 items, got 2">AssertionError: expected 3 items, got 2\n    at cart.test.ts:42</failure></testcase>`,
  );
  return `<?xml version="1.0"?><testsuites><testsuite name="cart" tests="${cases.length}">${cases.join('')}</testsuite></testsuites>`;
}

/** Fails then passes one test on one commit of main (pass-on-retry: flaky); returns its html_url. */
async function uploadFlakyTest(svc: TestService, org: string): Promise<string> {
  const sha = 'a1b2c3d'.padEnd(40, '0');
  for (const outcome of ['fail', 'pass'] as const) await uploadReport(svc, org, sha, 'main', { 'adds items to the cart': outcome, 'empties the cart': 'pass' });
  const res = await svc.post<{ tests: { html_url: string }[] }>('/flaky-tests/list-unhealthy-tests', {
    repo: SCENARIO_REPO,
    org_url_slug: org,
    status: 'FLAKY',
    page_query: { page_size: 10 },
  });
  const url = res.body.tests[0]?.html_url;
  if (!url) throw new Error(`no flaky test after the uploads: ${JSON.stringify(res.body)}`);
  return url;
}

async function uploadReport(svc: TestService, org: string, sha: string, branch: string, results: Record<string, 'pass' | 'fail'>): Promise<void> {
  const fd = new FormData();
  fd.append('meta', JSON.stringify({ repo: SCENARIO_REPO, org_url_slug: org, commit_sha: sha, branch }));
  fd.append('junit', new Blob([junit(results)]), 'junit.xml');
  fd.append('codeowners', new Blob(['/src/checkout/ @acme/payments\n']), 'CODEOWNERS');
  const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, { method: 'POST', body: fd, headers: { 'x-api-token': svc.token } });
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
}
