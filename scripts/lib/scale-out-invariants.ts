// What must hold after a scale-out run, however many processes died during it, read from the
// repository itself and the API rather than from the service's own bookkeeping:
// - nothing merged twice: each pull request is named by exactly one update of the target branch
//   (the local provider writes "openmq: merge #1, #2 (method)" into the branch's reflog, which the
//   benchmark repository keeps);
// - nothing merged untested: after every update the branch's tree is the tree of a test branch
//   that CI passed;
// - nothing lost: every pull request was merged, and the API says so.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gitText } from '../../shared/providers/local/git-runner.js';

export interface ScaleOutInvariants {
  /** Updates of the target branch after the repository was created. */
  branchUpdates: number;
  mergedTwice: number[];
  /** Updates that left the branch on a tree no passing CI run had: "<sha> (<reflog message>)". */
  untested: string[];
  notMerged: number[];
  /** Pull requests whose state the API gives otherwise than the repository: "#N: <state>". */
  wrongState: string[];
}

export const invariantsHold = (v: ScaleOutInvariants): boolean =>
  v.mergedTwice.length === 0 && v.untested.length === 0 && v.notMerged.length === 0 && v.wrongState.length === 0;

const MERGE_MESSAGE = /^openmq: merge (#\d+(?:, #\d+)*) \(/;

export async function checkScaleOutRun(run: {
  gitDir: string;
  targetBranch?: string;
  pullRequests: number;
  /** Commits CI reported successful. */
  passedShas: readonly string[];
  stateOf: (pr: number) => Promise<string>;
}): Promise<ScaleOutInvariants> {
  const branch = run.targetBranch ?? 'main';
  const log = await readFile(path.join(run.gitDir, 'logs', 'refs', 'heads', branch), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const updates = log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [refs = '', message = ''] = line.split('\t');
      return { newSha: refs.split(' ')[1] ?? '', message };
    });
  const treesOf = async (shas: readonly string[]): Promise<string[]> =>
    shas.length === 0
      ? []
      : (await gitText(['cat-file', '--batch-check=%(objectname)'], { gitDir: run.gitDir, input: shas.map((s) => `${s}^{tree}\n`).join('') })).split('\n');
  const tested = new Set(await treesOf(run.passedShas));
  const branchTrees = await treesOf(updates.map((u) => u.newSha));

  const times = new Map<number, number>();
  const untested: string[] = [];
  updates.forEach((u, i) => {
    for (const n of MERGE_MESSAGE.exec(u.message)?.[1]?.match(/\d+/g) ?? []) times.set(Number(n), (times.get(Number(n)) ?? 0) + 1);
    if (!tested.has(branchTrees[i] ?? '')) untested.push(`${u.newSha} (${u.message})`);
  });

  const wrongState: string[] = [];
  const notMerged: number[] = [];
  for (let n = 1; n <= run.pullRequests; n++) {
    const merged = times.has(n);
    if (!merged) notMerged.push(n);
    const state = await run.stateOf(n);
    if ((state === 'merged') !== merged) wrongState.push(`#${n}: ${state}`);
  }
  return {
    branchUpdates: updates.length,
    mergedTwice: [...times].filter(([, count]) => count > 1).map(([n]) => n),
    untested,
    notMerged,
    wrongState,
  };
}
