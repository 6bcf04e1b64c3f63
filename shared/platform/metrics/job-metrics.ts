// BullMQ job metrics: durations and failures from the events of this process's workers, and job
// counts per queue and state read from Redis when a scrape asks for them.
import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Counter, Histogram } from 'prom-client';

export interface JobInstruments {
  jobDuration: Histogram<'queue' | 'outcome'>;
  jobsCompleted: Counter<'queue'>;
  jobsFailed: Counter<'queue'>;
}

/** The states a job count is reported for (BullMQ's own list of job sets). */
export const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

interface FinishedJob {
  processedOn?: number | undefined;
  finishedOn?: number | undefined;
}

/** Processing time as BullMQ recorded it (taken → finished); null when it never started. */
function processingSeconds(job: FinishedJob | undefined): number | null {
  if (!job || typeof job.processedOn !== 'number' || typeof job.finishedOn !== 'number') return null;
  return Math.max(0, job.finishedOn - job.processedOn) / 1000;
}

/** Records every job this worker completes or fails. */
export function observeWorker(worker: Worker, queue: string, m: JobInstruments): void {
  worker.on('completed', (job) => {
    m.jobsCompleted.inc({ queue });
    const s = processingSeconds(job);
    if (s !== null) m.jobDuration.observe({ queue, outcome: 'completed' }, s);
  });
  worker.on('failed', (job) => {
    m.jobsFailed.inc({ queue });
    const s = processingSeconds(job);
    if (s !== null) m.jobDuration.observe({ queue, outcome: 'failed' }, s);
  });
}

export interface JobCountsSource {
  read(): Promise<Record<string, Record<string, number>>>;
  close(): Promise<void>;
}

/**
 * Reads job counts of the named queues (the service's job catalogue) over `connection` (the fail-fast producer
 * connection: a scrape must fail quickly when Redis is down, not queue commands). The BullMQ
 * Queue handles are made on the first read, so a process nobody scrapes opens none.
 */
export function jobCountsSource(names: readonly string[], connection: Redis, prefix: string): JobCountsSource {
  let queues: Queue[] | null = null;
  return {
    async read() {
      queues ??= names.map((name) => {
        const q = new Queue(name, { connection, prefix });
        q.on('error', () => undefined); // surfaces as a failed read (openmq_bullmq_up 0)
        return q;
      });
      const counts = await Promise.all(queues.map((q) => q.getJobCounts(...JOB_STATES)));
      return Object.fromEntries(queues.map((q, i) => [q.name, counts[i] as Record<string, number>]));
    },
    async close() {
      if (queues) await Promise.all(queues.map((q) => q.close()));
    },
  };
}
