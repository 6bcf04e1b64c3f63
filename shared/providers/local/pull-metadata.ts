// The optional metadata of a local pull request: `pulls/<N>.json` inside the bare repository.
// Git has no place for a title, an author login, a base branch or an open/closed state, so
// whoever publishes `refs/pull/<N>/head` may describe it here. Every field is optional.
import { open } from 'node:fs/promises';
import path from 'node:path';

export interface PullMetadata {
  title?: string;
  author?: string;
  base?: string;
  state?: 'open' | 'closed';
  draft?: boolean;
  headBranch?: string;
  labels?: string[];
}

/** A metadata file that exists but cannot be used: an operator error that must be visible, not guessed around. */
export class InvalidPullMetadataError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'InvalidPullMetadataError';
  }
}

const MAX_METADATA_BYTES = 64 * 1024;
const MAX_TEXT = 1024;
const MAX_LABELS = 100;

export function pullMetadataPath(repoDir: string, number: number): string {
  return path.join(repoDir, 'pulls', `${number}.json`);
}

function optionalText(file: string, raw: Record<string, unknown>, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT) {
    throw new InvalidPullMetadataError(file, `"${key}" must be a string of at most ${MAX_TEXT} characters`);
  }
  return value;
}

/** Validates the parsed JSON; unknown keys are ignored so the format can grow. */
export function parsePullMetadata(file: string, text: string): PullMetadata {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InvalidPullMetadataError(file, `not valid JSON (${(err as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPullMetadataError(file, 'must be a JSON object');
  const obj = raw as Record<string, unknown>;
  const meta: PullMetadata = {};
  const title = optionalText(file, obj, 'title');
  const author = optionalText(file, obj, 'author');
  const base = optionalText(file, obj, 'base');
  const headBranch = optionalText(file, obj, 'headBranch');
  if (title !== undefined) meta.title = title;
  if (author !== undefined) meta.author = author;
  if (base !== undefined) meta.base = base;
  if (headBranch !== undefined) meta.headBranch = headBranch;
  if (obj.state !== undefined && obj.state !== null) {
    if (obj.state !== 'open' && obj.state !== 'closed') throw new InvalidPullMetadataError(file, '"state" must be "open" or "closed"');
    meta.state = obj.state;
  }
  if (obj.labels !== undefined && obj.labels !== null) {
    const labels = obj.labels;
    if (!Array.isArray(labels) || labels.length > MAX_LABELS || labels.some((l) => typeof l !== 'string' || l.length === 0 || l.length > MAX_TEXT)) {
      throw new InvalidPullMetadataError(file, `"labels" must be a list of at most ${MAX_LABELS} non-empty strings`);
    }
    meta.labels = labels as string[];
  }
  if (obj.draft !== undefined && obj.draft !== null) {
    if (typeof obj.draft !== 'boolean') throw new InvalidPullMetadataError(file, '"draft" must be true or false');
    meta.draft = obj.draft;
  }
  return meta;
}

/** The metadata of pull request N, or null when there is no file. */
export async function readPullMetadata(repoDir: string, number: number): Promise<PullMetadata | null> {
  const file = pullMetadataPath(repoDir, number);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let buf: Buffer;
  try {
    // Read one byte more than allowed so an oversized file is noticed without reading all of it.
    const chunk = Buffer.alloc(MAX_METADATA_BYTES + 1);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, 0);
    buf = chunk.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (buf.length > MAX_METADATA_BYTES) throw new InvalidPullMetadataError(file, `larger than ${MAX_METADATA_BYTES} bytes`);
  return parsePullMetadata(file, buf.toString('utf8'));
}
