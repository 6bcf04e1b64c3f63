// Where the local provider keeps a repository: `<root>/<host>/<owner>/<name>.git`. Names come from
// API callers, so every segment is checked before it touches the file system: nothing may climb
// out of the root, and nothing may name a file that is not a repository directory.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RepoRef } from '../../platform/repo-ref.js';
import { AppError } from '../../platform/errors.js';

/** An `invalid` AppError, so an API caller gets 400 rather than a server error. */
export class InvalidRepositoryNameError extends AppError {
  constructor(message: string) {
    super('invalid', 'invalid_repository', message);
    this.name = 'InvalidRepositoryNameError';
  }
}

const MAX_SEGMENT = 255;
/** Characters no segment may hold: path separators of any platform, NUL and control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const FORBIDDEN = /[\\/\u0000-\u001f\u007f]/;

function checkSegment(kind: string, segment: string): void {
  if (segment.length === 0) throw new InvalidRepositoryNameError(`${kind} has an empty path segment`);
  if (segment.length > MAX_SEGMENT) throw new InvalidRepositoryNameError(`${kind} has a segment longer than ${MAX_SEGMENT} characters`);
  if (segment === '.' || segment === '..') throw new InvalidRepositoryNameError(`${kind} may not be "." or ".."`);
  if (FORBIDDEN.test(segment)) throw new InvalidRepositoryNameError(`${kind} contains a slash, backslash or control character`);
}

/**
 * The path segments of a repository below the root, validated. The owner may hold `/` for nested
 * groups (GitLab style); host and name may not.
 */
export function repositorySegments(repo: RepoRef): string[] {
  checkSegment('host', repo.host);
  const owner = repo.owner.split('/');
  for (const segment of owner) checkSegment('owner', segment);
  checkSegment('name', repo.name);
  return [repo.host, ...owner, `${repo.name}.git`];
}

/** The repository's directory by the naming convention alone (it may not exist). */
export function conventionalRepositoryPath(root: string, repo: RepoRef): string {
  const base = path.resolve(root);
  const full = path.resolve(base, ...repositorySegments(repo));
  // Belt and braces: the segment checks already exclude this.
  if (!full.startsWith(base + path.sep)) throw new InvalidRepositoryNameError('repository path escapes the git root');
  return full;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** A bare repository has HEAD and objects/ at its top (a cheap test without running git). */
export async function isBareRepository(dir: string): Promise<boolean> {
  try {
    const [head, objects] = await Promise.all([stat(path.join(dir, 'HEAD')), stat(path.join(dir, 'objects'))]);
    return head.isFile() && objects.isDirectory();
  } catch {
    return false;
  }
}

/** The one entry of `dir` equal to `name` ignoring case; null when none or several. */
async function caseInsensitiveEntry(dir: string, name: string): Promise<string | null> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return null;
  }
  const wanted = name.toLowerCase();
  const matches = entries.filter((e) => e.toLowerCase() === wanted);
  return matches.length === 1 ? (matches[0] ?? null) : null;
}

/**
 * Finds the bare repository for `repo`: the exact path first, then a case-insensitive match of
 * each segment, because forges (and the queue's repository key) treat owner and name
 * case-insensitively while the file system does not. Null when there is none.
 * Throws InvalidRepositoryNameError for names that could escape the root.
 */
export async function locateRepository(root: string, repo: RepoRef): Promise<string | null> {
  const exact = conventionalRepositoryPath(root, repo);
  if (await isBareRepository(exact)) return exact;
  let dir = path.resolve(root);
  for (const segment of repositorySegments(repo)) {
    const entry = (await isDirectory(path.join(dir, segment))) ? segment : await caseInsensitiveEntry(dir, segment);
    if (entry === null) return null;
    dir = path.join(dir, entry);
  }
  return (await isBareRepository(dir)) ? dir : null;
}
