// Long work written as async code can still hold the event loop: when every promise it awaits is
// already settled (the embedded store answers synchronously, a spooled upload is read from
// memory), the whole loop runs as one chain of microtasks and no request is answered until it
// ends. A loop that may run long asks `turnDue()` as it goes and, when its slice is spent, awaits
// `giveTurn()`: other work (requests, timers, I/O) runs, then the loop carries on.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work between two turns given to the event loop; well under what a health probe may wait. */
export const SLICE_MS = 20;

export class EventLoopTurns {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** The current slice is spent: the caller should `await giveTurn()` before going on. */
  turnDue(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  async giveTurn(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }

  /** Gives a turn when the slice is spent (for loops whose steps are not tiny). */
  async pace(): Promise<void> {
    if (this.turnDue()) await this.giveTurn();
  }
}
