// The start-up step that creates every repository's indexes. It reads them off the repository
// sets themselves, so a repository added to a set cannot be forgotten here.

interface WithIndexes {
  ensureIndexes(): Promise<void>;
}

function hasIndexes(value: unknown): value is WithIndexes {
  return typeof value === 'object' && value !== null && typeof (value as Partial<WithIndexes>).ensureIndexes === 'function';
}

/** Creates the indexes of every repository in the given sets (idempotent); run before serving. */
export async function ensureIndexes(...repositorySets: object[]): Promise<void> {
  await Promise.all(
    repositorySets.flatMap((set) =>
      Object.values(set)
        .filter(hasIndexes)
        .map((r) => r.ensureIndexes()),
    ),
  );
}
