// The document an upsert starts from, built the way the server does: the equality conditions
// of the filter (`field: value`, `field: {$eq: value}`, inside `$and` or a one-clause `$or`),
// with dotted paths expanded into embedded documents. Update operators are applied on top.
import type { Document } from 'mongodb';
import { deepCopy, isPlainObject } from './document-values.js';

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'));
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    const child = node[part];
    if (!isPlainObject(child)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = deepCopy(value);
}

function collect(filter: Document, seed: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) collect(clause, seed);
    } else if (key === '$or' && Array.isArray(value) && value.length === 1 && isPlainObject(value[0])) {
      collect(value[0], seed);
    } else if (key.startsWith('$') || value instanceof RegExp) {
      continue;
    } else if (isOperatorObject(value)) {
      if (Object.keys(value).length === 1 && '$eq' in value) setPath(seed, key, value.$eq);
    } else {
      setPath(seed, key, value);
    }
  }
}

export function upsertSeed(filter: Document): Document {
  const seed: Record<string, unknown> = {};
  collect(filter, seed);
  return seed;
}
