// What a promise rejected with; the test fails when it resolves instead.
export async function rejectionOf<E = Error>(promise: Promise<unknown>): Promise<E> {
  let value: unknown;
  try {
    value = await promise;
  } catch (err) {
    return err as E;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
}
