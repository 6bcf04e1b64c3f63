// timeout: a run that has not concluded by its deadline fails with test_run_timeout.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function timeoutProcessor(ctx: ServiceContext): JobProcessor<'timeout'> {
  return async (job) => {
    if (await ctx.services.engine.expireRun(job.data.testRunId, job.data.deadlineAt)) {
      await ctx.jobs.requestPlan(job.data.queueId, `test run ${job.data.testRunId} timed out`);
    }
  };
}
