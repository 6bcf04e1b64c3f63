// Waits on observable state: polls `probe` until it returns a value that is not undefined/false,
// or fails after the deadline with the last value seen. Never a fixed sleep.
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false | null>,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false && value !== null) return value;
    last = value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last value: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}
