// Runs tasks that share a key one after another, in call order, inside this process. The
// providers use it per repository so two writers in one process do not race for the same ref
// (and GitHub sees one write at a time per repository, as its secondary limits ask); across
// processes the compare-and-swap on refs is what keeps writes correct.

export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    // `previous` never rejects (see `tail`), so a failed task does not block the ones behind it.
    const result = previous.then(() => task());
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once idle so the map does not grow with every repository ever touched.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
