// The main thread's side of the compaction thread: starts it on the first job, sends jobs, and
// answers each with its result.
import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../../runtime/module-thread.js';
import type { FoldJob, FoldResult } from './snapshot-fold.js';
import type { FoldReply, FoldRequest } from './snapshot-worker.js';

export class SnapshotFolder {
  private thread: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: FoldResult) => void; reject: (e: Error) => void }>();

  fold(job: FoldJob): Promise<FoldResult> {
    const thread = this.ensureThread();
    const id = ++this.nextId;
    return new Promise<FoldResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const request: FoldRequest = { ...job, id };
      thread.postMessage(request);
    });
  }

  private ensureThread(): Worker {
    if (this.thread) return this.thread;
    const thread = startModuleThread(import.meta.url, 'snapshot-worker');
    // An idle compaction thread must not keep a process alive that has nothing else to do.
    thread.unref();
    thread.on('message', (reply: FoldReply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (!waiter) return;
      if (reply.ok) waiter.resolve({ bytes: reply.bytes, count: reply.count });
      else waiter.reject(new Error(reply.message));
    });
    const fail = (err: Error) => {
      this.thread = null;
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(new Error(`the compaction thread exited (${code})`)));
    this.thread = thread;
    return thread;
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.terminate();
  }
}
