// Builds real git repositories for tests in the layout the local provider serves:
// `<root>/<host>/<owner>/<name>.git`, pull requests at `refs/pull/N/head`, metadata in
// `pulls/N.json`. Commits are written with plumbing (hash-object, a throw-away index,
// write-tree, commit-tree, update-ref), so no clone or working tree is needed and it is fast.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import { gitText, identityEnv, runGit } from '../../shared/providers/local/git-runner.js';
import type { PullMetadata } from '../../shared/providers/local/pull-metadata.js';
import { conventionalRepositoryPath } from '../../shared/providers/local/repo-path.js';

export interface FixtureRepo {
  root: string;
  repo: RepoRef;
  /** The bare repository directory. */
  dir: string;
}

export interface Person {
  name: string;
  email: string;
  /** Git date, e.g. `1700000000 +0000` or an ISO date; default now. */
  date?: string;
}

export interface CommitSpec {
  message: string;
  /** Path → new content; `null` deletes the file. Paths may contain directories. */
  files?: Record<string, string | null>;
  author?: Person;
}

export interface CommitInfo {
  sha: string;
  parents: string[];
  tree: string;
  subject: string;
  /** Full message without the trailing newline. */
  message: string;
  authorName: string;
  authorEmail: string;
  /** Unix seconds and zone, as stored: `1700000000 +0000`. */
  authorDate: string;
  committerName: string;
  committerEmail: string;
}

export const DEFAULT_REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const TEST_AUTHOR: Person = { name: 'Test Author', email: 'author@example.com' };

/** A fresh directory to use as LOCAL_GIT_ROOT; remove it with removeGitRoot. */
export function makeGitRoot(prefix = 'openmq-git-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

export function removeGitRoot(root: string): Promise<void> {
  return rm(root, { recursive: true, force: true });
}

function git(fx: FixtureRepo, args: string[], opts: { input?: string | Buffer; env?: Record<string, string> } = {}): Promise<string> {
  return gitText(args, { gitDir: fx.dir, ...opts });
}

/**
 * Creates a bare repository at the conventional path with one commit on `branch` (default
 * `main`) holding `files`, and points HEAD at that branch.
 */
export async function createRepo(
  root: string,
  opts: { repo?: RepoRef; files?: Record<string, string>; branch?: string; message?: string; author?: Person } = {},
): Promise<FixtureRepo & { initialSha: string }> {
  const repo = opts.repo ?? DEFAULT_REPO;
  const dir = conventionalRepositoryPath(root, repo);
  await mkdir(path.dirname(dir), { recursive: true });
  const branch = opts.branch ?? 'main';
  await runGit(['init', '--quiet', '--bare', `--initial-branch=${branch}`, dir]);
  const fx: FixtureRepo = { root, repo, dir };
  const initialSha = await commit(fx, null, {
    message: opts.message ?? 'Initial commit',
    files: opts.files ?? { 'README.md': '# widgets\n' },
    ...(opts.author ? { author: opts.author } : {}),
  });
  await setRef(fx, `refs/heads/${branch}`, initialSha);
  return { ...fx, initialSha };
}

/** Writes one commit on top of `parent` (null: a root commit) without moving any ref. */
export async function commit(fx: FixtureRepo, parent: string | null, spec: CommitSpec): Promise<string> {
  const index = path.join(tmpdir(), `openmq-index-${randomUUID()}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(fx, parent ? ['read-tree', `${parent}^{tree}`] : ['read-tree', '--empty'], { env });
    const lines: string[] = [];
    for (const [file, content] of Object.entries(spec.files ?? {})) {
      if (content === null) {
        // Mode 0 removes the path from the index.
        lines.push(`0 ${'0'.repeat(40)}\t${file}`);
      } else {
        const blob = await git(fx, ['hash-object', '-w', '--stdin'], { input: content });
        lines.push(`100644 ${blob}\t${file}`);
      }
    }
    if (lines.length > 0) await git(fx, ['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` });
    const tree = await git(fx, ['write-tree'], { env });
    const author = spec.author ?? TEST_AUTHOR;
    return await git(fx, ['commit-tree', tree, ...(parent ? ['-p', parent] : [])], {
      input: `${spec.message}\n`,
      env: { ...identityEnv('AUTHOR', author, author.date), ...identityEnv('COMMITTER', TEST_AUTHOR, author.date) },
    });
  } finally {
    await rm(index, { force: true });
  }
}

/** Writes commits one on top of the other; returns the last (or `parent` when there are none). */
export async function commitChain(fx: FixtureRepo, parent: string | null, specs: readonly CommitSpec[]): Promise<string> {
  let head = parent;
  for (const spec of specs) head = await commit(fx, head, spec);
  if (head === null) throw new Error('commitChain needs a parent or at least one commit');
  return head;
}

/** Points a ref at a commit unconditionally (a forced push). */
export async function setRef(fx: FixtureRepo, ref: string, sha: string): Promise<void> {
  await git(fx, ['update-ref', ref, sha]);
}

/** The commit a branch name, ref or sha names; throws when it names nothing. */
export async function resolve(fx: FixtureRepo, rev: string): Promise<string> {
  const candidates = /^[0-9a-f]{40}$/i.test(rev) ? [rev] : [`refs/heads/${rev}`, rev];
  for (const candidate of candidates) {
    const { exitCode, stdout } = await runGit(['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`], { gitDir: fx.dir, okExitCodes: [1] });
    if (exitCode === 0) return stdout.toString('utf8').trim();
  }
  throw new Error(`${rev} names no commit in ${fx.dir}`);
}

/** The commit a branch points at, or null when it does not exist. */
export async function branchSha(fx: FixtureRepo, branch: string): Promise<string | null> {
  const { exitCode, stdout } = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { gitDir: fx.dir, okExitCodes: [1] });
  return exitCode === 0 ? stdout.toString('utf8').trim() : null;
}

export interface PullRequestFixture {
  number: number;
  /** Branch name or sha the pull request starts from (default `main`). */
  base?: string;
  commits: readonly CommitSpec[];
  /** Written to `pulls/N.json` when given. */
  metadata?: PullMetadata;
}

/** Publishes pull request N: commits on top of `base` at `refs/pull/N/head` (and metadata, if given). */
export async function createPullRequest(fx: FixtureRepo, pr: PullRequestFixture): Promise<{ number: number; headSha: string; baseSha: string }> {
  const baseSha = await resolve(fx, pr.base ?? 'main');
  const headSha = await commitChain(fx, baseSha, pr.commits);
  await setRef(fx, `refs/pull/${pr.number}/head`, headSha);
  if (pr.metadata) await writePullMetadata(fx, pr.number, pr.metadata);
  return { number: pr.number, headSha, baseSha };
}

/** Adds commits to an existing pull request (a push to its branch); returns the new head. */
export async function pushToPullRequest(fx: FixtureRepo, number: number, commits: readonly CommitSpec[]): Promise<string> {
  const head = await commitChain(fx, await resolve(fx, `refs/pull/${number}/head`), commits);
  await setRef(fx, `refs/pull/${number}/head`, head);
  return head;
}

/** Writes `pulls/N.json` (the metadata may hold deliberately invalid values for tests); null removes it. */
export async function writePullMetadata(fx: FixtureRepo, number: number, metadata: PullMetadata | Record<string, unknown> | null): Promise<void> {
  const file = path.join(fx.dir, 'pulls', `${number}.json`);
  if (metadata === null) return rm(file, { force: true });
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(metadata, null, 2));
}

/**
 * Adds commits directly to a branch (someone pushing to main outside the queue); a missing
 * branch is created from `from` (default `main`). Returns the new head.
 */
export async function pushToBranch(fx: FixtureRepo, branch: string, commits: readonly CommitSpec[], opts: { from?: string } = {}): Promise<string> {
  const current = (await branchSha(fx, branch)) ?? (await resolve(fx, opts.from ?? 'main'));
  const head = await commitChain(fx, current, commits);
  await setRef(fx, `refs/heads/${branch}`, head);
  return head;
}

/** A file's content at a branch, ref or sha; null when absent. */
export async function readFileAt(fx: FixtureRepo, rev: string, file: string): Promise<string | null> {
  const sha = await resolve(fx, rev);
  const { exitCode, stdout } = await runGit(['cat-file', 'blob', `${sha}:${file}`], { gitDir: fx.dir, okExitCodes: [128] });
  return exitCode === 0 ? stdout.toString('utf8') : null;
}

/** Every file path in the tree of a branch, ref or sha, sorted. */
export async function listTree(fx: FixtureRepo, rev: string): Promise<string[]> {
  const sha = await resolve(fx, rev);
  const { stdout } = await runGit(['ls-tree', '-r', '-z', '--name-only', sha], { gitDir: fx.dir });
  return stdout.toString('utf8').split('\0').filter(Boolean).sort();
}

/** Path → content of every file at a branch, ref or sha (small test repositories only). */
export async function readTree(fx: FixtureRepo, rev: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of await listTree(fx, rev)) out[file] = (await readFileAt(fx, rev, file)) ?? '';
  return out;
}

/** The tree id of a commit. */
export function treeOf(fx: FixtureRepo, rev: string): Promise<string> {
  return resolve(fx, rev).then((sha) => git(fx, ['rev-parse', `${sha}^{tree}`]));
}

/** Commits reachable from a branch, ref or sha, newest first (`firstParent`: the mainline only; `limit`: at most that many). */
export async function listCommits(fx: FixtureRepo, rev: string, opts: { firstParent?: boolean; limit?: number } = {}): Promise<CommitInfo[]> {
  const sha = await resolve(fx, rev);
  const args = ['rev-list', '--topo-order', ...(opts.firstParent ? ['--first-parent'] : []), ...(opts.limit ? [`--max-count=${opts.limit}`] : []), sha];
  const list = await git(fx, args);
  const shas = list === '' ? [] : list.split('\n');
  return Promise.all(shas.map((s) => describeCommit(fx, s)));
}

async function describeCommit(fx: FixtureRepo, sha: string): Promise<CommitInfo> {
  const raw = await git(fx, ['cat-file', 'commit', sha]);
  const split = raw.indexOf('\n\n');
  const header = raw.slice(0, split === -1 ? raw.length : split).split('\n');
  const message = split === -1 ? '' : raw.slice(split + 2);
  const field = (key: string) => header.filter((l) => l.startsWith(`${key} `)).map((l) => l.slice(key.length + 1));
  const person = (line: string | undefined) => {
    const m = /^(.*) <([^>]*)> (\d+ [+-]\d{4})$/.exec(line ?? '');
    return { name: m?.[1] ?? '', email: m?.[2] ?? '', date: m?.[3] ?? '' };
  };
  const author = person(field('author')[0]);
  const committer = person(field('committer')[0]);
  return {
    sha,
    parents: field('parent'),
    tree: field('tree')[0] ?? '',
    subject: message.split('\n')[0] ?? '',
    message: message.replace(/\n$/, ''),
    authorName: author.name,
    authorEmail: author.email,
    authorDate: author.date,
    committerName: committer.name,
    committerEmail: committer.email,
  };
}
