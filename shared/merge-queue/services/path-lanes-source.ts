// The lanes a repository maps its paths to (`merge.lanes` of `.trunk/trunk.yaml` at the target
// head; docs/lanes.md). A file whose lanes cannot be used gives no lanes: pull requests then need
// uploaded impacted targets, as without the setting.
import type { PathLanes } from '../domain/path-lanes.js';
import type { Queue } from '../domain/model.js';
import { parseTrunkLanes, type FileReader } from '../domain/trunk-config.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { TrunkConfigCache } from './trunk-config-cache.js';

export class PathLanesSource {
  private readonly files = new TrunkConfigCache(parseTrunkLanes);

  /** `sha`: the target head (null: unknown, no lanes). Lanes only count in parallel mode, which is the caller's to judge. */
  async of(queue: Pick<Queue, 'repo'>, reader: FileReader<RepoRef>, sha: string | null): Promise<PathLanes | null> {
    return (await this.read(queue, reader, sha)).lanes;
  }

  /** The lanes, and what is wrong with the file when it has lanes that cannot be used (the queue's warning). */
  async read(queue: Pick<Queue, 'repo'>, reader: FileReader<RepoRef>, sha: string | null): Promise<{ lanes: PathLanes | null; problem: string | null }> {
    if (!sha) return { lanes: null, problem: null };
    const trunk = await this.files.at(queue.repo, reader, sha);
    return { lanes: trunk.kind === 'lanes' ? trunk.lanes : null, problem: trunk.kind === 'invalid' ? trunk.message : null };
  }
}
