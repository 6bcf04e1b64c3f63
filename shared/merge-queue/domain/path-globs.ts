// Path globs as schedules and lanes read them: picomatch's syntax, relative to the repository's
// root, dot files matching like any other (`.github/**`); a glob without a slash matches at the
// root only (`*.lock`; `**/*.lock` anywhere).
import picomatch from 'picomatch';

const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true };

/** Why a path glob cannot be used; null when it can. */
export function globProblem(glob: string): string | null {
  if (glob.trim() !== glob || glob.length === 0) return 'must be a glob without surrounding spaces';
  if (glob.startsWith('/') || glob.startsWith('./')) return 'must be relative to the repository root, without a leading "/" or "./"';
  try {
    picomatch.makeRe(glob, GLOB_OPTIONS);
    return null;
  } catch (err) {
    return `is not a glob picomatch can read (${(err as Error).message})`;
  }
}

/** One matcher per list of globs (a list kept in a schedule or configuration is compiled once). */
const matchers = new WeakMap<readonly string[], picomatch.Matcher>();

/** Whether a path matches any of `globs`. */
export function pathMatcher(globs: readonly string[]): picomatch.Matcher {
  let matcher = matchers.get(globs);
  if (!matcher) matchers.set(globs, (matcher = picomatch([...globs], GLOB_OPTIONS)));
  return matcher;
}
