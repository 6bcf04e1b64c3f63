// How a catalogue of BullMQ jobs is written: each job name maps to a spec — its payload's schema
// (the producer's type and the worker's check are both made of it) and its options (attempts,
// backoff, retention, deduplication, schedule, concurrency), all read in one table. Each module
// declares the catalogue of its own jobs (shared/<module>/jobs.ts); the composition root joins
// them into the service's one catalogue (shared/composition/jobs.ts).
//
// Jobs carry ids, never documents or secrets; processors reload state from the database. Each job
// name is also the name of its BullMQ queue.
import type { Job } from 'bullmq';
import type { Static, TObject } from 'typebox';

export interface JobSpec<S extends TObject = TObject> {
  /** The payload: ids and the few values a job needs. Checked when the job arrives. */
  payload: S;
  /** Tries in all; a failure before the last is retried after `backoffMs` (doubling). */
  attempts: number;
  backoffMs: number;
  /** Jobs run at once per worker process. */
  concurrency: number;
  /** Finished jobs kept for inspection; every job keeps KEEP_COMPLETED and KEEP_FAILED unless it says otherwise. */
  keepCompleted?: { count: number; ageSeconds: number };
  keepFailed?: { count: number; ageSeconds: number };
  /**
   * At most one such job waits while one runs (the latest payload wins); none runs twice at once.
   * BullMQ deduplication with keepLastIfActive.
   */
  deduplicateBy?(payload: Static<S>): string;
  /** A fixed job id: enqueueing the same id again is a no-op (delayed checks, wake-ups). */
  jobId?(payload: Static<S>, runAt: number): string;
  /** Periodic jobs: upserted as a job scheduler by every worker process, every this many seconds. */
  everySeconds?: number;
}

export type JobCatalogue = Readonly<Record<string, JobSpec>>;

type Joined<P extends readonly JobCatalogue[]> = P extends readonly [infer H, ...infer T extends readonly JobCatalogue[]] ? H & Joined<T> : unknown;

/**
 * The modules' catalogues as one. A name used twice would be one BullMQ queue serving two
 * payloads, so joining refuses it.
 */
export function joinCatalogues<P extends readonly JobCatalogue[]>(...parts: P): Joined<P> {
  const names = parts.flatMap((p) => Object.keys(p));
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) throw new Error(`job names used by two modules: ${[...new Set(twice)].join(', ')}`);
  return Object.assign({}, ...parts) as Joined<P>;
}

/** A spec with its payload type kept (for `satisfies`-free inference in module catalogues). */
export const jobSpec = <S extends TObject>(spec: JobSpec<S>): JobSpec<S> => spec;

/** The payload of job `K` of catalogue `C`. */
export type PayloadOf<C extends JobCatalogue, K extends keyof C> = C[K] extends JobSpec<infer S> ? Static<S> : never;

/** What every job carries besides its payload: the request that caused it, for the logs. */
export interface JobEnvelope {
  requestId?: string;
}

/** Enqueues a job of catalogue `C` (the producer's `enqueue`, handed to the services that need it). */
export type Enqueue<C extends JobCatalogue> = <K extends keyof C & string>(name: K, payload: PayloadOf<C, K>, opts?: EnqueueOptions) => Promise<void>;

/** Enqueues jobs of one name in one round trip (the producer's `enqueueMany`). */
export type EnqueueMany<C extends JobCatalogue> = <K extends keyof C & string>(name: K, payloads: readonly PayloadOf<C, K>[]) => Promise<void>;

export interface EnqueueOptions {
  /** Run no earlier than this. */
  runAt?: Date;
}

/** The processor of job `K`: it receives the checked payload. */
export type JobProcessor<C extends JobCatalogue, K extends keyof C> = (job: Job<PayloadOf<C, K> & JobEnvelope>) => Promise<void>;

/** A processor for every job of the catalogue: a missing one, or one for another payload, does not compile. */
export type ProcessorRegistry<C extends JobCatalogue> = { readonly [K in keyof C]: JobProcessor<C, K> };

const KEEP_COMPLETED = { count: 1000, ageSeconds: 3600 };
const KEEP_FAILED = { count: 5000, ageSeconds: 7 * 86400 };

/** BullMQ's retention options of a job (shared by enqueue, schedulers and workers). */
export function retentionOf(spec: JobSpec): { removeOnComplete: { count: number; age: number }; removeOnFail: { count: number; age: number } } {
  const completed = spec.keepCompleted ?? KEEP_COMPLETED;
  const failed = spec.keepFailed ?? KEEP_FAILED;
  return {
    removeOnComplete: { count: completed.count, age: completed.ageSeconds },
    removeOnFail: { count: failed.count, age: failed.ageSeconds },
  };
}
