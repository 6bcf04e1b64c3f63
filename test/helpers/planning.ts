// Planning passes in tests with workers running. In production one queue is planned by one pass
// at a time (plan jobs are deduplicated per queue); a test that runs a pass itself must not run
// it beside a worker's, and a test waiting for "nothing more to plan" must count the delayed
// wake-ups and timeouts that are already due.
import type { Queue } from 'bullmq';
import type { TestService } from '../../scripts/lib/test-service.js';
import type { PassSummary } from '../../shared/merge-queue/services/engine/engine-service.js';
import { waitFor } from '../../scripts/lib/wait.js';

const jobQueues = (svc: TestService): Queue[] => [svc.ctx.jobs.queue('plan'), svc.ctx.jobs.queue('wake'), svc.ctx.jobs.queue('timeout')];

async function hasDueWork(queue: Queue, now: number): Promise<boolean> {
  const counts = await queue.getJobCounts('active', 'waiting', 'prioritized', 'waiting-children');
  if (Object.values(counts).some((c) => c > 0)) return true;
  return (await queue.getDelayed()).some((job) => job.timestamp + (job.opts.delay ?? 0) <= now);
}

/**
 * Waits until no planning pass is queued or running and no wake-up or timeout that is due is
 * still to run (each of those asks for a pass). A pass that loaded the queue before a settings
 * change may still act on the old settings; tests that need the new ones to hold wait for it.
 */
export async function planIdle(svc: TestService): Promise<void> {
  await waitFor('planner idle', async () => {
    const now = Date.now();
    for (const queue of jobQueues(svc)) if (await hasDueWork(queue, now)) return false;
    return true;
  });
}

/**
 * One planning pass of `queueId` run by the test (to read its summary), with the workers'
 * planning paused until it ends, so it never runs beside a worker's pass of the same queue.
 */
export async function planExclusively(svc: TestService, queueId: string): Promise<PassSummary> {
  const plans = svc.ctx.jobs.queue('plan');
  await plans.pause();
  try {
    await waitFor('no planning pass running', async () => (await plans.getActiveCount()) === 0);
    return await svc.ctx.mergeQueue.services.engine.planQueue(queueId);
  } finally {
    await plans.resume();
  }
}
