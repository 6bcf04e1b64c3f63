// Checks for the names and ids the provider passes to git. They arrive from API callers and
// stored state; checking them here means no value can turn into a git option, a revision
// expression (`main~1`, `@{-1}`, `a..b`) or a path outside the repository.
import { AppError } from '../../platform/errors.js';

/** A caller-supplied name or id git must not see; an `invalid` AppError, so the API answers 400. */
export class InvalidGitNameError extends AppError {
  constructor(message: string) {
    super('invalid', 'invalid_git_name', message);
    this.name = 'InvalidGitNameError';
  }
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A full object id (SHA-1 or SHA-256), lowercased. Abbreviations are refused: they can become ambiguous. */
export function objectId(value: string, what = 'object id'): string {
  const lower = value.toLowerCase();
  if (!OBJECT_ID.test(lower)) throw new InvalidGitNameError(`${what} must be a full hexadecimal commit id, got "${value.slice(0, 80)}"`);
  return lower;
}

/**
 * A branch name git accepts (the rules of `git check-ref-format --branch`), so that
 * `refs/heads/<name>` is a plain reference and never a revision expression.
 */
export function branchName(value: string): string {
  const bad = (why: string): never => {
    throw new InvalidGitNameError(`invalid branch name "${value.slice(0, 200)}": ${why}`);
  };
  if (value.length === 0 || value.length > 1024) bad('must be 1–1024 characters');
  if (value.startsWith('-')) bad('may not start with "-"');
  if (value === '@') bad('may not be "@"');
  // Control characters, space and the characters git reserves for revision syntax.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(value)) bad('contains a space, control character or one of ~^:?*[\\');
  if (value.includes('..')) bad('may not contain ".."');
  if (value.includes('@{')) bad('may not contain "@{"');
  if (value.startsWith('/') || value.endsWith('/') || value.includes('//')) bad('has an empty path component');
  if (value.endsWith('.')) bad('may not end with "."');
  for (const component of value.split('/')) {
    if (component.startsWith('.')) bad('a path component may not start with "."');
    if (component.endsWith('.lock')) bad('a path component may not end with ".lock"');
  }
  return value;
}

export function branchRef(branch: string): string {
  return `refs/heads/${branchName(branch)}`;
}

/** A pull request number: a positive whole number that fits a ref name and a JSON file name. */
export function pullNumber(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidGitNameError(`pull request number must be a positive integer, got ${value}`);
  return value;
}

/**
 * A path inside a tree: relative, `/`-separated, without empty, "." or ".." components, and free
 * of the characters that would break `cat-file --batch-check` input lines.
 */
export function treePath(value: string): string {
  if (value.length === 0 || value.length > 4096) throw new InvalidGitNameError('file path must be 1–4096 characters');
  // eslint-disable-next-line no-control-regex -- NUL is what this refuses
  if (/[\u0000\n\r]/.test(value)) throw new InvalidGitNameError('file path may not contain NUL or line breaks');
  for (const component of value.split('/')) {
    if (component === '' || component === '.' || component === '..') {
      throw new InvalidGitNameError(`file path "${value.slice(0, 200)}" must be relative without empty, "." or ".." components`);
    }
  }
  return value;
}
