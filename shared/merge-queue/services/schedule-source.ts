// The schedule in effect for a queue: its own (updateQueue), else `merge.schedule` of
// `.trunk/trunk.yaml` at the target head, parsed once per commit (TrunkConfigCache).
import type { MergeSchedule } from '../domain/merge-schedule.js';
import type { Queue } from '../domain/model.js';
import type { ScheduleOrigin } from '../domain/merge-window.js';
import { parseTrunkSchedule, type FileReader } from '../domain/trunk-config.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { TrunkConfigCache } from './trunk-config-cache.js';

export interface EffectiveSchedule {
  schedule: MergeSchedule | null;
  origin: ScheduleOrigin | null;
  /** Why the repository's schedule is not applied (it cannot be used); null when nothing is wrong. */
  problem: string | null;
}

const NONE: EffectiveSchedule = { schedule: null, origin: null, problem: null };

export class ScheduleSource {
  private readonly files = new TrunkConfigCache(parseTrunkSchedule);

  /** `sha`: the target head (null: unknown, so only the queue's own schedule counts). */
  async of(queue: Queue, reader: FileReader<RepoRef>, sha: string | null): Promise<EffectiveSchedule> {
    if (queue.schedule) return { schedule: queue.schedule, origin: 'queue', problem: null };
    if (!sha) return NONE;
    const trunk = await this.files.at(queue.repo, reader, sha);
    if (trunk.kind === 'schedule') return { schedule: trunk.schedule, origin: 'trunk_config', problem: null };
    return trunk.kind === 'invalid' ? { ...NONE, problem: trunk.message } : NONE;
  }
}
