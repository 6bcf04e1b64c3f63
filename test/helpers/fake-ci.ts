// A fake CI system for end-to-end tests. Like real CI it watches for pushes of trunk-merge/**
// branches in the repository, "tests" each new head (a decision function over the files of the
// tested tree), and reports the result with POST /v1/setCommitStatus — and, when asked to, uploads
// the JUnit report of the head before or after the status, as CI jobs do. It knows nothing about
// the queue's internals.
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import { gitText } from '../../shared/providers/local/git-runner.js';
import { readTree, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';

export type Verdict = 'success' | 'failure' | 'error' | null;

export interface CiRun {
  branch: string;
  sha: string;
  files: Record<string, string>;
  verdict: Exclude<Verdict, null>;
}

export interface FakeCiOptions {
  fx: FixtureRepo;
  repo: RepoRef;
  context: string;
  /** Posts a status; returns the HTTP status code. */
  postStatus: (body: { repo: RepoRef; sha: string; context: string; state: string; targetUrl?: string }) => Promise<number>;
  /**
   * The verdict for a test branch head; null means still running (asked again on the next poll).
   * `seen` numbers test branch heads in the order CI first saw them (1, 2, …).
   */
  decide: (files: Record<string, string>, info: { branch: string; sha: string; seen: number }) => Verdict;
  /** The JUnit report of a head once it has a verdict, uploaded before its status (or after, with `after`). */
  report?: (files: Record<string, string>, info: { branch: string; sha: string; seen: number }) => { junit: string; after?: boolean } | null;
  /** Uploads a report (flaky-tests upload); returns the HTTP status code. */
  uploadReport?: (body: { sha: string; branch: string; junit: string }) => Promise<number>;
  intervalMs?: number;
}

export interface FakeCi {
  /** Every run answered, in order. */
  runs: CiRun[];
  stop(): Promise<void>;
}

export function startFakeCi(opts: FakeCiOptions): FakeCi {
  const answered = new Set<string>();
  const posted = new Set<string>();
  const uploaded = new Set<string>();
  const uploadOnce = async (key: string, body: { sha: string; branch: string; junit: string }): Promise<boolean> => {
    if (!opts.uploadReport) throw new Error('report without uploadReport');
    if ((await opts.uploadReport(body)) !== 200) return false;
    uploaded.add(key);
    return true;
  };
  const firstSeen = new Map<string, number>();
  const runs: CiRun[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const out = await gitText(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/trunk-merge/'], { gitDir: opts.fx.dir });
        for (const line of out.split('\n').filter(Boolean)) {
          const [ref, sha] = line.split(' ') as [string, string];
          const key = `${ref} ${sha}`;
          if (answered.has(key)) continue;
          if (!firstSeen.has(key)) firstSeen.set(key, firstSeen.size + 1);
          const seen = firstSeen.get(key)!;
          const files = await readTree(opts.fx, sha);
          const branch = ref.replace(/^refs\/heads\//, '');
          // A null verdict means "still running": asked again on the next poll.
          const verdict = opts.decide(files, { branch, sha, seen });
          if (!verdict) continue;
          const report = opts.report?.(files, { branch, sha, seen }) ?? null;
          const upload = async (): Promise<boolean> => !report || uploaded.has(key) || (await uploadOnce(key, { sha, branch, junit: report.junit }));
          if (report && !report.after && !(await upload())) continue;
          // Like a CI system's status delivery, retried on the next poll until the service accepts it.
          if (!posted.has(key)) {
            const status = await opts.postStatus({ repo: opts.repo, sha, context: opts.context, state: verdict, targetUrl: `https://ci.example/${seen}` });
            if (status !== 200) continue;
            posted.add(key);
          }
          if (report?.after && !(await upload())) continue;
          answered.add(key);
          runs.push({ branch, sha, files, verdict });
        }
      } catch {
        // The branch may be deleted between listing and reading it; the next poll continues.
      }
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 30));
    }
  })();
  return {
    runs,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
