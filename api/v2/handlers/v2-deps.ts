// What the v2 handlers use: the merge queue's use cases and the repositories they read, the same
// ones v1 uses (one engine, two APIs).
import type { MergeQueueModule } from '../../../shared/merge-queue/merge-queue-module.js';
import type { Queue } from '../../../shared/merge-queue/domain/model.js';
import { notFound } from '../../../shared/platform/errors.js';

export type V2Deps = Pick<MergeQueueModule, 'services' | 'store'>;

/** A queue of the caller's organisation by id; another organisation's is answered as absent (404). */
export async function queueOf(deps: V2Deps, orgId: string, id: string): Promise<Queue> {
  const queue = await deps.store.queues.findById(id);
  if (!queue || queue.orgId !== orgId) throw notFound('queue_not_found', `no merge queue with id ${id}`);
  return queue;
}
