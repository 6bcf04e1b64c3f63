// The schedule in effect for a queue: its own (updateQueue), else `merge.schedule` of
// `.trunk/trunk.yaml` at the target head. A file at a commit never changes, so what it says is
// kept per repository and commit: the planner and the schedule watcher read a forge's file once
// per target head, not once per pass.
import { LRUCache } from 'lru-cache';
import type { MergeSchedule } from '../domain/merge-schedule.js';
import type { Queue } from '../domain/model.js';
import type { ScheduleOrigin } from '../domain/merge-window.js';
import { TRUNK_CONFIG_PATH, parseTrunkSchedule, type FileReader, type TrunkSchedule } from '../domain/trunk-config.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

export interface EffectiveSchedule {
  schedule: MergeSchedule | null;
  origin: ScheduleOrigin | null;
  /** Why the repository's schedule is not applied (it cannot be used); null when nothing is wrong. */
  problem: string | null;
}

const NONE: EffectiveSchedule = { schedule: null, origin: null, problem: null };

export class ScheduleSource {
  private readonly parsed = new LRUCache<string, TrunkSchedule>({ max: 2000 });

  /** `sha`: the target head (null: unknown, so only the queue's own schedule counts). */
  async of(queue: Queue, reader: FileReader<RepoRef>, sha: string | null): Promise<EffectiveSchedule> {
    if (queue.schedule) return { schedule: queue.schedule, origin: 'queue', problem: null };
    if (!sha) return NONE;
    const key = `${repoKey(queue.repo)}@${sha}`;
    let trunk = this.parsed.get(key);
    if (!trunk) {
      trunk = parseTrunkSchedule(await reader.readFile(queue.repo, sha, TRUNK_CONFIG_PATH));
      this.parsed.set(key, trunk);
    }
    if (trunk.kind === 'schedule') return { schedule: trunk.schedule, origin: 'trunk_config', problem: null };
    return trunk.kind === 'invalid' ? { ...NONE, problem: trunk.message } : NONE;
  }
}
