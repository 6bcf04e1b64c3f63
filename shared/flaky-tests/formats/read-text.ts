// A small text part of an upload (meta, CODEOWNERS) read whole, up to a limit.
import type { ByteSource } from './junit/index.js';

/** The bytes as UTF-8 text; null when they exceed `limit` (reading stops there). */
export async function readText(source: ByteSource, limit: number): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    size += b.length;
    if (size > limit) return null;
    parts.push(b);
  }
  return Buffer.concat(parts).toString('utf8');
}
