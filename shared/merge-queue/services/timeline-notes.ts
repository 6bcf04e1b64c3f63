// Timeline notes: lines a pull request's timeline gains without a state change (its tests' status
// went unreported; a later pull request of its batch fails only together with it). A note must
// not be lost to a concurrent transition, so it is retried on the entry as it is now.
import type { MergeQueueRepositories } from '../store/store.js';
import type { TimelineNote } from '../store/entry-repository.js';
import type { Logger } from '../../platform/logging.js';

const ATTEMPTS = 5;

export async function recordTimelineNote(
  deps: { store: Pick<MergeQueueRepositories, 'entries'>; logger: Logger },
  entryId: string,
  note: TimelineNote,
  now: Date,
): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await deps.store.entries.addTimelineNote(entryId, note, now)) return;
    if (!(await deps.store.entries.findById(entryId))) return;
  }
  deps.logger.warn({ entryId, reason: note.reason }, 'timeline note not recorded: the entry kept changing');
}
