// timeout: a run that has not concluded by its deadline fails with test_run_timeout.
import type { Job } from 'bullmq';
import type { TimeoutJob } from '../../shared/jobs/job-types.js';
import type { ServiceContext } from '../../shared/runtime/context.js';

export function timeoutProcessor(ctx: ServiceContext) {
  return async (job: Job<TimeoutJob>): Promise<void> => {
    if (await ctx.services.engine.expireRun(job.data.testRunId, job.data.attempt)) {
      await ctx.jobs.requestPlan(job.data.queueId, `test run ${job.data.testRunId} timed out`);
    }
  };
}
