// What the scale-out benchmark does to a running service, over its HTTP API only (so it measures
// a docker compose stack and an in-process service alike): create a repository of pull requests
// in the service's LOCAL_GIT_ROOT, a queue that waits for `ci/test`, submit every pull request,
// play CI (every test branch the queue pushes passes `ciSeconds` later), and poll getQueue with
// autocannon until every pull request is merged. Merges are read from the repository itself
// (the local provider records `refs/pull/N/merged` with each merge).
//
// With an interruption (scripts/scale-out-crash.ts) it kills part of the service once a number of
// pull requests have merged, rides out the API's absence when the API went with it, and checks
// the run afterwards (scale-out-invariants.ts): nothing merged twice, nothing merged untested,
// nothing lost.
import autocannon from 'autocannon';
import { gitText } from '../../shared/providers/local/git-runner.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import { createBenchRepo } from './bench-repo.js';
import type { ScaleOutOptions } from './scale-out-options.js';
import { checkScaleOutRun, type ScaleOutInvariants } from './scale-out-invariants.js';

export interface ScaleOutService {
  /** Base URL of the API (no trailing slash). */
  url: string;
  token: string;
  /** The directory the service reads as LOCAL_GIT_ROOT. */
  gitRoot: string;
}

export interface ScaleOutResult {
  pullRequests: number;
  merged: number;
  /** From the first submission to the last merge (or the timeout). */
  seconds: number;
  mergesPerMinute: number;
  /** Test branches the simulated CI passed. */
  testRuns: number;
  submitSeconds: number;
  getQueue: { requests: number; rps: number; p99: number; failed: number };
  /** API calls repeated because the service did not answer (it was being restarted). */
  callsRetried: number;
  /** When the interruption ran, in pull requests merged by then; null without one. */
  interruptedAt: number | null;
  invariants: ScaleOutInvariants;
}

/** Part of the service killed mid-run: a worker process, or the whole all-in-one process (then restarted). */
export interface Interruption {
  /** Runs once this many pull requests have merged. */
  afterMerged: number;
  run: () => Promise<void>;
}

const CI_CONTEXT = 'ci/test';
const TEST_BRANCHES = 'refs/heads/trunk-merge/';
const POLL_MS = 250;
/** How long a call waits for a service that does not answer (a process restarting) before failing. */
const UNANSWERED_MS = 120_000;

/** One API call; a refused connection or a 503 (starting, stopping) is tried again for a bounded time. */
async function callService(service: ScaleOutService, operation: string, body: unknown, retried: { count: number }): Promise<unknown> {
  const giveUp = performance.now() + UNANSWERED_MS;
  for (;;) {
    const res = await fetch(`${service.url}/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': service.token },
      body: JSON.stringify(body),
    }).catch((err: Error) => err);
    if (res instanceof Response && res.status !== 503) {
      const text = await res.text();
      if (!res.ok) throw new Error(`${operation} answered ${res.status}: ${text}`);
      return text ? JSON.parse(text) : null;
    }
    if (performance.now() > giveUp)
      throw new Error(`${operation}: the service did not answer for ${UNANSWERED_MS / 1000} s (${res instanceof Error ? res.message : '503'})`);
    retried.count++;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function refShas(gitDir: string, pattern: string): Promise<string[]> {
  const out = await gitText(['for-each-ref', '--format=%(objectname)', pattern], { gitDir });
  return out === '' ? [] : out.split('\n');
}

export async function driveScaleOut(
  service: ScaleOutService,
  opts: Pick<ScaleOutOptions, 'pullRequests' | 'ciSeconds' | 'concurrency' | 'getQueueConnections' | 'timeoutMinutes'>,
  log: (line: string) => void = () => {},
  interruption: Interruption | null = null,
): Promise<ScaleOutResult> {
  const repo: RepoRef = { host: 'bench.local', owner: 'scale-out', name: `run-${Date.now()}` };
  const gitDir = await createBenchRepo(service.gitRoot, repo, opts.pullRequests);
  const ref = { repo, targetBranch: 'main' };
  const retried = { count: 0 };
  const call = (operation: string, body: unknown) => callService(service, operation, body, retried);
  await call('createQueue', ref);
  await call('updateQueue', { ...ref, requiredStatuses: [CI_CONTEXT], concurrency: opts.concurrency });

  const started = performance.now();
  // Ten submitters at once, as several CI jobs and bots would.
  let next = 1;
  await Promise.all(
    Array.from({ length: Math.min(10, opts.pullRequests) }, async () => {
      for (let n = next++; n <= opts.pullRequests; n = next++) await call('submitPullRequest', { ...ref, pr: { number: n } });
    }),
  );
  const submitSeconds = (performance.now() - started) / 1000;
  log(`${opts.pullRequests} pull requests submitted in ${submitSeconds.toFixed(1)} s`);

  let pollers: autocannon.Instance | null = null;
  const polling = new Promise<autocannon.Result>((resolve, reject) => {
    pollers = autocannon(
      {
        url: `${service.url}/v1/getQueue`,
        connections: opts.getQueueConnections,
        // Stopped when the queue is done; the duration only bounds a run that never finishes.
        duration: opts.timeoutMinutes * 60,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': service.token },
        body: JSON.stringify(ref),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });

  const passed = new Set<string>();
  const reports: Array<Promise<unknown>> = [];
  const deadline = started + opts.timeoutMinutes * 60_000;
  let merged = 0;
  let lastMergeAt = started;
  let interruptedAt: number | null = null;
  while (merged < opts.pullRequests && performance.now() < deadline) {
    if (interruption && interruptedAt === null && merged >= interruption.afterMerged) {
      interruptedAt = merged;
      log(`interrupting after ${merged} merged`);
      await interruption.run();
    }
    for (const sha of await refShas(gitDir, TEST_BRANCHES)) {
      if (passed.has(sha)) continue;
      passed.add(sha);
      reports.push(
        new Promise((resolve) => setTimeout(resolve, opts.ciSeconds * 1000)).then(() =>
          call('setCommitStatus', { repo, sha, context: CI_CONTEXT, state: 'success' }),
        ),
      );
    }
    const nowMerged = (await refShas(gitDir, 'refs/pull/*/merged')).length;
    if (nowMerged > merged) {
      merged = nowMerged;
      lastMergeAt = performance.now();
      log(`${merged}/${opts.pullRequests} merged after ${((lastMergeAt - started) / 1000).toFixed(0)} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  (pollers as autocannon.Instance | null)?.stop();
  const polled = await polling;
  await Promise.allSettled(reports);

  const seconds = ((merged === opts.pullRequests ? lastMergeAt : performance.now()) - started) / 1000;
  const invariants = await checkScaleOutRun({
    gitDir,
    pullRequests: opts.pullRequests,
    passedShas: [...passed],
    stateOf: async (n) => ((await call('getSubmittedPullRequest', { ...ref, pr: { number: n } })) as { state: string }).state,
  });
  return {
    pullRequests: opts.pullRequests,
    merged,
    seconds,
    mergesPerMinute: merged / (seconds / 60),
    testRuns: passed.size,
    submitSeconds,
    getQueue: {
      requests: polled.requests.total,
      rps: polled.requests.total / polled.duration,
      p99: polled.latency.p99,
      failed: polled.non2xx + polled.errors + polled.timeouts,
    },
    callsRetried: retried.count,
    interruptedAt,
    invariants,
  };
}
