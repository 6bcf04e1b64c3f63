// Git plumbing on one bare repository: reading refs and objects, merging commits in memory with
// `merge-tree --write-tree`, writing commits with `commit-tree` and moving refs atomically with
// compare-and-swap. No working tree, index or checkout is ever used, so any number of these can
// work on one repository at once.
import { parseRawCommit, type RawCommit } from './commit-object.js';
import { GitCommandError, gitText, identityEnv, runGit, type GitIdentity, type GitRunOptions, type GitResult } from './git-runner.js';

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export interface RefEntry {
  ref: string;
  sha: string;
  type: string;
  authorName: string;
  subject: string;
}

export type CommitMerge =
  | { clean: true; tree: string }
  /** `conflictedFiles` is empty when git refuses the merge outright (unrelated histories). */
  | { clean: false; conflictedFiles: string[] };

export interface RefUpdate {
  ref: string;
  newSha: string;
  /** The value the ref must have now; `null` = must not exist; undefined = no check. */
  oldSha?: string | null;
}

export interface NewCommit {
  tree: string;
  parents: string[];
  message: string | Buffer;
  /** Defaults to the service's identity with the current date. */
  author?: { name: string; email: string; date?: string };
  /** The message's encoding when it is not UTF-8 (kept when replaying a commit). */
  encoding?: string | null;
}

/** Bytes above which a blob is not read into memory by readBlob. */
export class BlobTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(`${path} is ${size} bytes, more than the ${limit} bytes the provider reads`);
    this.name = 'BlobTooLargeError';
  }
}

export class GitRepository {
  private emptyTreeOid: string | null = null;

  constructor(
    readonly dir: string,
    private readonly committer: GitIdentity,
  ) {}

  run(args: readonly string[], opts: Omit<GitRunOptions, 'gitDir'> = {}): Promise<GitResult> {
    return runGit(args, { ...opts, gitDir: this.dir });
  }

  text(args: readonly string[], opts: Omit<GitRunOptions, 'gitDir'> = {}): Promise<string> {
    return gitText(args, { ...opts, gitDir: this.dir });
  }

  /**
   * Refs under the given prefixes (or exact names). for-each-ref also matches anything below a
   * name (`refs/heads/a` matches `refs/heads/a/b`), so callers compare `ref` exactly.
   */
  async refs(patterns: readonly string[]): Promise<RefEntry[]> {
    const format = '%(refname)%00%(objectname)%00%(objecttype)%00%(authorname)%00%(subject)';
    const { stdout } = await this.run(['for-each-ref', `--format=${format}`, ...patterns]);
    const entries: RefEntry[] = [];
    for (const line of stdout.toString('utf8').split('\n')) {
      if (line === '') continue;
      const [ref = '', sha = '', type = '', authorName = '', subject = ''] = line.split('\0');
      entries.push({ ref, sha, type, authorName, subject });
    }
    return entries;
  }

  /** The object a ref points at, or null when the ref does not exist. */
  async refTarget(ref: string): Promise<string | null> {
    const found = (await this.refs([ref])).find((e) => e.ref === ref);
    return found ? found.sha : null;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const { exitCode } = await this.run(['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [1] });
    return exitCode === 0;
  }

  /**
   * The paths that differ between `head` and its merge base with `base` (what a pull request
   * changes, whatever moved on `base` since); null when the two share no history.
   */
  async changedPaths(base: string, head: string): Promise<string[] | null> {
    const { exitCode, stdout } = await this.run(['merge-base', base, head], { okExitCodes: [1] });
    if (exitCode === 1) return null;
    const mergeBase = stdout.toString('utf8').trim();
    const diff = await this.run(['diff-tree', '-r', '-z', '--name-only', '--no-renames', '--no-commit-id', mergeBase, head]);
    return diff.stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '');
  }

  /** The tree of a commit. */
  treeOf(commit: string): Promise<string> {
    return this.text(['rev-parse', '--verify', `${commit}^{tree}`]);
  }

  async rawCommit(sha: string): Promise<RawCommit> {
    const { stdout } = await this.run(['cat-file', 'commit', sha], { maxOutputBytes: 4 * 1024 * 1024 });
    return parseRawCommit(sha, stdout);
  }

  /** Types of objects by revision expression (`<sha>`, `<sha>:<path>`): `{oid, type, size}` or null when missing. */
  async describeObjects(revisions: readonly string[]): Promise<Array<{ oid: string; type: string; size: number } | null>> {
    const { stdout } = await this.run(['cat-file', '--batch-check'], { input: revisions.map((r) => `${r}\n`).join('') });
    const lines = stdout.toString('utf8').split('\n').slice(0, revisions.length);
    return lines.map((line) => {
      const [oid = '', type = '', size = ''] = line.split(' ');
      return OID.test(oid) && /^\d+$/.test(size) ? { oid, type, size: Number(size) } : null;
    });
  }

  async readBlob(oid: string, label: string, size: number, limit: number): Promise<Buffer> {
    if (size > limit) throw new BlobTooLargeError(label, size, limit);
    const { stdout } = await this.run(['cat-file', 'blob', oid], { maxOutputBytes: limit });
    return stdout;
  }

  /** The empty tree in this repository's hash algorithm (SHA-1 and SHA-256 differ). */
  async emptyTree(): Promise<string> {
    this.emptyTreeOid ??= await this.text(['mktree'], { input: '' });
    return this.emptyTreeOid;
  }

  /**
   * Merges two commits in memory with git's own merge machinery (ort), using their real merge
   * base(s). Writes the resulting tree object, no ref.
   */
  async mergeCommits(ours: string, theirs: string): Promise<CommitMerge> {
    const args = ['merge-tree', '--write-tree', '--no-messages', '--name-only', '-z', ours, theirs];
    let result: GitResult;
    try {
      result = await this.run(args, { okExitCodes: [1] });
    } catch (err) {
      // Two histories without a common commit cannot be merged; for the queue that is a conflict.
      if (err instanceof GitCommandError && err.stderr.includes('refusing to merge unrelated histories')) {
        return { clean: false, conflictedFiles: [] };
      }
      throw err;
    }
    // Output: <tree>\0 then, on conflict, each conflicted path followed by \0.
    const [tree = '', ...rest] = result.stdout.toString('utf8').split('\0');
    // Exit 1 is also what git returns for an unknown revision, with no tree: that is an error, not a conflict.
    if (!OID.test(tree)) throw new GitCommandError(args, result.exitCode, result.stderr, 'merge-tree printed no tree id');
    if (result.exitCode === 0) return { clean: true, tree };
    return { clean: false, conflictedFiles: [...new Set(rest.filter((p) => p !== ''))] };
  }

  /**
   * Three-way merge of trees with an explicit base: what cherry-picking `theirs` (whose parent
   * tree is `base`) onto `ours` produces. git 2.39's merge-tree has no `--merge-base`, so the base
   * is imposed by merging two throw-away commits that share one throw-away parent; git then finds
   * exactly that parent as the merge base. The temporary commits are unreferenced and pruned by gc.
   */
  async mergeTreesWithBase(baseTree: string, oursTree: string, theirsTree: string): Promise<CommitMerge> {
    const base = await this.commitTree({ tree: baseTree, parents: [], message: 'merge base (temporary)' });
    const [ours, theirs] = await Promise.all([
      this.commitTree({ tree: oursTree, parents: [base], message: 'ours (temporary)' }),
      this.commitTree({ tree: theirsTree, parents: [base], message: 'theirs (temporary)' }),
    ]);
    return this.mergeCommits(ours, theirs);
  }

  /** Writes a commit object (no ref moves). The committer is always the service. */
  async commitTree(commit: NewCommit): Promise<string> {
    const author = commit.author ?? this.committer;
    const env = {
      ...identityEnv('AUTHOR', author, commit.author?.date),
      ...identityEnv('COMMITTER', this.committer),
    };
    const config = commit.encoding ? ['-c', `i18n.commitEncoding=${commit.encoding}`] : [];
    const parents = commit.parents.flatMap((p) => ['-p', p]);
    // The message goes through stdin: byte-exact, any length, never parsed as an option.
    return this.text([...config, 'commit-tree', commit.tree, ...parents], { env, input: commit.message });
  }

  /**
   * Applies ref updates in one transaction: all happen or none do. Returns false when a
   * precondition failed (some ref was not at its expected value); other failures throw.
   */
  async updateRefs(updates: readonly RefUpdate[], reason: string): Promise<boolean> {
    const lines = updates.map((u) => {
      if (u.oldSha === undefined) return `update ${u.ref} ${u.newSha}\n`;
      if (u.oldSha === null) return `create ${u.ref} ${u.newSha}\n`;
      return `update ${u.ref} ${u.newSha} ${u.oldSha}\n`;
    });
    try {
      await this.run(['update-ref', '-m', reason, '--stdin'], { input: lines.join('') });
      return true;
    } catch (err) {
      if (!(err instanceof GitCommandError)) throw err;
      // Distinguish "somebody else moved it" (an answer) from a broken repository (an error) by looking.
      for (const u of updates) {
        if (u.oldSha === undefined) continue;
        const now = await this.refTarget(u.ref);
        if (now !== u.oldSha) return false;
      }
      throw err;
    }
  }

  /** Deletes a ref if it still points at `oldSha`. Returns false when it did not. */
  async deleteRef(ref: string, oldSha: string, reason: string): Promise<boolean> {
    try {
      await this.run(['update-ref', '-m', reason, '-d', ref, oldSha]);
      return true;
    } catch (err) {
      if (err instanceof GitCommandError && (await this.refTarget(ref)) !== oldSha) return false;
      throw err;
    }
  }
}
