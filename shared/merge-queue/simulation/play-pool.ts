// Replay threads: the settings of one simulateQueue call played side by side, each play in a
// worker thread of its own, so advice takes a fraction of the time on a machine with cores to
// spare and none of it on the event loop that answers requests. Threads start on first use, one
// play at a time each, and end after a minute without work (each holds a V8 heap of its own).
import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../../platform/runtime/module-thread.js';
import type { PlayReply, PlayRequest } from './play-worker.js';
import type { QueueHistory } from './queue-history.js';
import type { FullSettings, Replayer, SettingsOutcome } from './what-if.js';

const IDLE_MS = 60_000;

interface Task {
  request: PlayRequest;
  resolve: (outcome: SettingsOutcome) => void;
  reject: (err: Error) => void;
}

export class PlayPool implements Replayer {
  private readonly threads = new Set<Worker>();
  private readonly idle: Worker[] = [];
  private readonly running = new Map<Worker, Task>();
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private readonly waiting: Task[] = [];
  private closed = false;

  constructor(
    private readonly size: number,
    /** How long a thread may wait for work before it ends. */
    private readonly idleMs = IDLE_MS,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a replay pool needs at least one thread, not ${size}`);
  }

  /** The outcomes in the order of `settings`; rejects with the first play that failed. */
  playAll(history: QueueHistory, settings: readonly FullSettings[]): Promise<SettingsOutcome[]> {
    return Promise.all(settings.map((s) => this.submit({ history, settings: s })));
  }

  /** Ends every thread; plays still running or waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) task.reject(new Error('the replay threads were closed'));
    await Promise.all([...this.threads].map((t) => t.terminate()));
  }

  private submit(request: PlayRequest): Promise<SettingsOutcome> {
    if (this.closed) return Promise.reject(new Error('the replay threads were closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (;;) {
      const task = this.waiting[0];
      if (!task) return;
      const thread = this.idle.pop() ?? (this.threads.size < this.size ? this.start() : null);
      if (!thread) return;
      this.waiting.shift();
      clearTimeout(this.idleTimers.get(thread));
      this.idleTimers.delete(thread);
      this.running.set(thread, task);
      thread.ref();
      thread.postMessage(task.request);
    }
  }

  private start(): Worker {
    const thread = startModuleThread(import.meta.url, 'play-worker');
    this.threads.add(thread);
    thread.on('message', (reply: PlayReply) => {
      const task = this.running.get(thread);
      this.running.delete(thread);
      this.rest(thread);
      if (reply.ok) task?.resolve(reply.outcome);
      else task?.reject(new Error(reply.message));
      this.dispatch();
    });
    const lost = (err: Error) => {
      if (!this.forget(thread)) return;
      this.running.get(thread)?.reject(err);
      this.running.delete(thread);
      // The plays still waiting get a new thread.
      if (!this.closed) this.dispatch();
    };
    thread.on('error', lost);
    thread.on('exit', (code) => lost(new Error(`a replay thread stopped (exit code ${code})`)));
    return thread;
  }

  /** An idle thread keeps no process alive and ends after `idleMs` unless work comes first. */
  private rest(thread: Worker): void {
    thread.unref();
    this.idle.push(thread);
    const timer = setTimeout(() => {
      // Out of the pool before it ends, so no play is handed to a thread on its way out.
      this.forget(thread);
      void thread.terminate();
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(thread, timer);
  }

  /** Takes a thread out of the pool; false when it was out already. */
  private forget(thread: Worker): boolean {
    if (!this.threads.delete(thread)) return false;
    const at = this.idle.indexOf(thread);
    if (at >= 0) this.idle.splice(at, 1);
    clearTimeout(this.idleTimers.get(thread));
    this.idleTimers.delete(thread);
    return true;
  }
}
