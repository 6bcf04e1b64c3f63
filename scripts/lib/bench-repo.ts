// The repository the pull-request benchmarks work on: a bare repository with `main` and pull
// requests 1..count, each adding its own file (so any of them merges cleanly after any other),
// written by one `git fast-import`, then logging every update of its refs.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { gitText, runGit } from '../../shared/providers/local/git-runner.js';
import { conventionalRepositoryPath } from '../../shared/providers/local/repo-path.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';

/** Creates the repository under `root` (the local provider's LOCAL_GIT_ROOT); returns its directory. */
export async function createBenchRepo(root: string, repo: RepoRef, count: number): Promise<string> {
  const dir = conventionalRepositoryPath(root, repo);
  await mkdir(path.dirname(dir), { recursive: true });
  await runGit(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  const who = 'Bench Author <bench@example.com> 1700000000 +0000';
  const chunks: string[] = [];
  const readme = '# bench\n';
  chunks.push(
    `commit refs/heads/main\nmark :1\nauthor ${who}\ncommitter ${who}\ndata 8\nInitial\nM 100644 inline README.md\ndata ${readme.length}\n${readme}\n`,
  );
  for (let n = 1; n <= count; n++) {
    const msg = `Change ${n}\n`;
    const content = `${n}\n`;
    chunks.push(
      `commit refs/pull/${n}/head\nauthor ${who}\ncommitter ${who}\ndata ${msg.length}\n${msg}from :1\nM 100644 inline changes/pr-${n}.txt\ndata ${content.length}\n${content}\n`,
    );
  }
  await gitText(['fast-import', '--quiet'], { gitDir: dir, input: chunks.join('') });
  // From now on every update of a branch is logged (a bare repository logs none by default): the
  // scale-out checks read each merge of `main` from its reflog.
  await runGit(['config', 'core.logAllRefUpdates', 'always'], { gitDir: dir });
  return dir;
}
