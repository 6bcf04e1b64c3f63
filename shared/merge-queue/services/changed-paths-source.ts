// The files queued pull requests change, for freezes scoped by paths (docs/merge-windows.md). A
// pull request's changes are read from its merge base with the target, which does not move when
// the target does, so they are kept per repository and head commit: the planner, the forecast and
// a pull request's status read each head's files once, not once per pass. A read that fails (the
// forge is down, the commit is gone) is not kept and counts as unknown, which a freeze holds.
import { LRUCache } from 'lru-cache';
import type { Entry, Queue } from '../domain/model.js';
import type { GitProvider } from './provider.js';
import type { Logger } from '../../platform/logging.js';
import { repoKey } from '../../platform/repo-ref.js';

/** More changed files than this: the pull request counts as touching everything (its list is not kept). */
export const MAX_CHANGED_PATHS = 10_000;

export class ChangedPathsSource {
  private readonly known = new LRUCache<string, { paths: string[] | null }>({ max: 5_000 });

  constructor(private readonly logger: Logger) {}

  /** The files each entry's head changes, by entry id; null where not known. `targetSha` null: nothing is read. */
  async of(queue: Queue, provider: GitProvider, targetSha: string | null, entries: readonly Entry[]): Promise<Record<string, string[] | null>> {
    const out: Record<string, string[] | null> = {};
    for (const e of entries) out[e.id] = targetSha ? await this.read(queue, provider, targetSha, e.prSha) : null;
    return out;
  }

  private async read(queue: Queue, provider: GitProvider, targetSha: string, headSha: string): Promise<string[] | null> {
    const key = `${repoKey(queue.repo)}@${headSha}`;
    const known = this.known.get(key);
    if (known) return known.paths;
    try {
      const paths = await provider.changedPaths(queue.repo, { baseSha: targetSha, headSha }, MAX_CHANGED_PATHS);
      this.known.set(key, { paths });
      return paths;
    } catch (err) {
      this.logger.warn({ err, queueId: queue.id, headSha }, 'changed files of a pull request could not be read; freezes scoped by paths hold it');
      return null;
    }
  }
}
