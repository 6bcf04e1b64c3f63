// Replays are CPU work of seconds to a minute (simulateQueue with a goal plays dozens of settings
// over up to a thousand pull requests), and any token that can read a queue may ask for one. The
// gate keeps that from taking the process: one replay runs at a time, a few more wait their turn
// in arrival order, and an organisation has at most one running or waiting. Anything past that is
// refused at once with a time to retry, rather than piling up CPU work and open requests.
import { AppError } from '../../platform/errors.js';

export interface SimulationGateOptions {
  /** Replays that may wait while one runs. */
  waiting: number;
  /** What a refused caller is told to wait before the first replay of the process has finished. */
  firstRetryAfterSeconds: number;
}

export const DEFAULT_GATE_OPTIONS: SimulationGateOptions = { waiting: 2, firstRetryAfterSeconds: 30 };

interface Turn {
  orgId: string;
  start: () => void;
}

export class SimulationGate {
  private running: string | null = null;
  private readonly queue: Turn[] = [];
  private lastSeconds: number | null = null;

  constructor(private readonly options: SimulationGateOptions = DEFAULT_GATE_OPTIONS) {}

  /** Runs `work` when its turn comes, or throws `rate_limited` when the organisation or the gate is full. */
  async run<T>(orgId: string, work: () => Promise<T>): Promise<T> {
    if (this.running === orgId || this.queue.some((t) => t.orgId === orgId)) {
      throw this.refusal('simulation_in_progress', 'a simulation of this organisation is already running or waiting; retry when it has answered', 1);
    }
    if (this.running !== null) {
      if (this.queue.length >= this.options.waiting) {
        throw this.refusal('simulation_busy', `${this.queue.length + 1} simulations are running or waiting in this process`, this.queue.length + 1);
      }
      // The replay before hands its turn over directly (below), so no later caller can slip in.
      await new Promise<void>((start) => this.queue.push({ orgId, start }));
    } else this.running = orgId;
    const began = performance.now();
    try {
      return await work();
    } finally {
      this.lastSeconds = (performance.now() - began) / 1000;
      const next = this.queue.shift();
      this.running = next?.orgId ?? null;
      next?.start();
    }
  }

  private refusal(code: string, message: string, ahead: number): AppError {
    const each = this.lastSeconds ?? this.options.firstRetryAfterSeconds;
    const seconds = Math.max(1, Math.ceil(each * ahead));
    return new AppError('rate_limited', code, `${message}; retry after ${seconds} s`, [], { retryAfterSeconds: seconds });
  }
}
