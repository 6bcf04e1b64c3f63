// Runs tasks one at a time per key, in arrival order (within this process). Ingestion serialises
// the evidence-and-evaluation phase of uploads to one repository with it, so an evaluation never
// misses a concurrent upload's evidence while skipping writes that change nothing.
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
