// Applies an update (operator document or aggregation pipeline) with mingo's updater. Around
// it, only what mingo leaves to the caller or does differently from the server: `$setOnInsert`
// (mingo has none), `_id` immutability, conflicting paths, and the type errors the server
// raises where mingo silently skips the operator.
//
// One document under field operators on plain paths (nearly every write: a state transition, a
// test's health, an event marked published) goes to mingo's update operators one by one.
// mingo's updateMany builds its operator tables anew on every call, copying each operator module
// through getters: about 100 µs per call, ten times what applying the operators costs, and
// 100,000 health writes per large upload made that seconds. Positional and multi-document
// updates still go through updateMany, which knows the filter the documents matched.
import { updateMany } from 'mingo';
import { $addToSet, $inc, $max, $min, $mul, $pop, $pull, $pullAll, $push, $set, $unset } from 'mingo/operators/update';
import type { Document } from 'mongodb';
import { deepCopy, dropUndefinedFields, isPlainObject, valueKey } from './document-values.js';
import { EmbeddedServerError, ErrorCode } from './errors.js';

export interface ApplyUpdateOptions {
  /** The filter the documents matched: mingo needs it for the positional `$` operator. */
  filter: Document;
  /** True when building an upserted document: `$setOnInsert` applies and `_id` may be set. */
  inserting: boolean;
}

type Modifier = Record<string, Record<string, unknown>>;

type Mutation = (doc: Document) => string[];

type Operator = (args: Record<string, unknown>) => Mutation;
/** mingo types each operator's argument by its shape; the operator checks that shape itself. */
const operator =
  <A>(fn: (args: A) => Mutation): Operator =>
  (args) =>
    fn(args as A);

/**
 * Operators that depend on nothing but their argument and the document. They clone what they
 * store shallowly (mingo's default), which is enough for one document: the modifier is this
 * call's own deep copy, so nothing stored is shared with the caller or with another document.
 * `$currentDate` is not among them: mingo's default options would keep the first call's time.
 */
const DIRECT_OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['$set', operator($set)],
  ['$unset', operator($unset)],
  ['$inc', operator($inc)],
  ['$mul', operator($mul)],
  ['$max', operator($max)],
  ['$min', operator($min)],
  ['$push', operator($push)],
  ['$addToSet', operator($addToSet)],
  ['$pull', operator($pull)],
  ['$pullAll', operator($pullAll)],
  ['$pop', operator($pop)],
]);

const NUMERIC_OPERATORS = new Set(['$inc', '$mul']);
const ARRAY_OPERATORS = new Set(['$push', '$addToSet', '$pop', '$pull', '$pullAll']);
const PUSH_MODIFIERS = ['$each', '$slice', '$sort', '$position'];

function bsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function immutableId(): EmbeddedServerError {
  return new EmbeddedServerError(ErrorCode.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
}

/** Reads a dotted path through embedded documents only; `undetermined` when it crosses an array or positional part. */
function readSimplePath(doc: Document, path: string): { state: 'found' | 'missing' | 'undetermined'; value?: unknown } {
  if (path.includes('$')) return { state: 'undetermined' };
  let node: unknown = doc;
  for (const part of path.split('.')) {
    if (!isPlainObject(node)) return { state: node === undefined ? 'missing' : 'undetermined' };
    node = node[part];
  }
  return node === undefined ? { state: 'missing' } : { state: 'found', value: node };
}

function setSimplePath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: Record<string, unknown> = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (node[part] === undefined) node[part] = {};
    const child = node[part];
    if (!isPlainObject(child)) return;
    node = child;
  }
  node[parts[parts.length - 1] as string] = value;
}

function parseModifier(update: unknown): Modifier {
  if (!isPlainObject(update) || Object.keys(update).length === 0) {
    throw new EmbeddedServerError(ErrorCode.FailedToParse, 'Update document requires atomic operators');
  }
  const modifier: Modifier = {};
  for (const [op, args] of Object.entries(deepCopy(update))) {
    if (!op.startsWith('$')) throw new EmbeddedServerError(ErrorCode.FailedToParse, 'Update document requires atomic operators');
    if (!isPlainObject(args))
      throw new EmbeddedServerError(ErrorCode.FailedToParse, `Modifiers operate on fields but we found a ${bsonTypeName(args)} instead for ${op}`);
    modifier[op] = args;
  }
  return modifier;
}

/** The server refuses an update that touches one path twice, or a path and its parent. */
function assertNoConflicts(modifier: Modifier): void {
  const paths: string[] = [];
  for (const [op, args] of Object.entries(modifier)) {
    paths.push(...Object.keys(args));
    if (op === '$rename') paths.push(...Object.values(args).filter((v): v is string => typeof v === 'string'));
  }
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      const a = paths[i] as string;
      const b = paths[j] as string;
      if (a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`)) {
        const [longer, shorter] = a.length >= b.length ? [a, b] : [b, a];
        throw new EmbeddedServerError(ErrorCode.ConflictingUpdateOperators, `Updating the path '${longer}' would create a conflict at '${shorter}'`);
      }
    }
  }
}

/** Server type checks mingo skips (it leaves the document unchanged instead of failing). */
function assertApplicable(doc: Document, modifier: Modifier): void {
  for (const [op, args] of Object.entries(modifier)) {
    const numeric = NUMERIC_OPERATORS.has(op);
    if (!numeric && !ARRAY_OPERATORS.has(op)) continue;
    for (const [path, arg] of Object.entries(args)) {
      if (numeric && typeof arg !== 'number') {
        throw new EmbeddedServerError(
          ErrorCode.TypeMismatch,
          `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${JSON.stringify(arg)}}`,
        );
      }
      const current = readSimplePath(doc, path);
      if (current.state !== 'found') continue;
      if (numeric && typeof current.value !== 'number') {
        throw new EmbeddedServerError(
          ErrorCode.TypeMismatch,
          `Cannot apply ${op} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path}' of non-numeric type ${bsonTypeName(current.value)}`,
        );
      }
      if (!numeric && !Array.isArray(current.value)) {
        throw new EmbeddedServerError(
          ErrorCode.BadValue,
          `The field '${path}' must be an array but is of type ${bsonTypeName(current.value)} in document {_id: ${JSON.stringify(doc._id)}}`,
        );
      }
    }
  }
}

/** mingo ignores $slice/$sort/$position when $push creates the array, so create it empty first. */
function preparePushTargets(doc: Document, modifier: Modifier): void {
  const push = modifier.$push;
  if (!push) return;
  for (const [path, arg] of Object.entries(push)) {
    if (!isPlainObject(arg) || !PUSH_MODIFIERS.some((m) => m in arg)) continue;
    if (readSimplePath(doc, path).state === 'missing') setSimplePath(doc, path, []);
  }
}

function applyModifier(docs: Document[], modifier: Modifier, options: ApplyUpdateOptions): Document[] {
  const setOnInsert = options.inserting ? modifier.$setOnInsert : undefined;
  delete modifier.$setOnInsert;
  // mingo refuses any `_id` path; the server allows it on insert, and elsewhere when unchanged.
  let idAssignment: { value: unknown } | null = null;
  for (const args of [modifier.$set, setOnInsert]) {
    if (args && '_id' in args) {
      idAssignment = { value: args._id };
      delete args._id;
    }
  }
  if (modifier.$set && Object.keys(modifier.$set).length === 0) delete modifier.$set;
  for (const doc of docs) {
    assertApplicable(doc, modifier);
    preparePushTargets(doc, modifier);
    if (idAssignment) {
      if (options.inserting) doc._id = idAssignment.value;
      else if (valueKey(idAssignment.value) !== valueKey(doc._id)) throw immutableId();
    }
  }
  if (Object.keys(modifier).length > 0) applyOperators(docs, options.inserting ? {} : options.filter, modifier);
  if (options.inserting && setOnInsert && Object.keys(setOnInsert).length > 0) applyOperators(docs, {}, { $set: setOnInsert });
  return docs;
}

/** Whether the modifier may skip updateMany (see the top of this file). */
function direct(modifier: Modifier): boolean {
  for (const [op, args] of Object.entries(modifier)) {
    if (!DIRECT_OPERATORS.has(op)) return false;
    // `$`, `$[]` and `$[id]` need the filter or array filters.
    for (const path of Object.keys(args)) if (path.includes('$')) return false;
  }
  return true;
}

function applyOperators(docs: Document[], filter: Document, modifier: Modifier): void {
  const doc = docs.length === 1 ? docs[0] : undefined;
  if (doc === undefined || !direct(modifier)) {
    updateMany(docs, filter, modifier, { cloneMode: 'deep' });
    return;
  }
  for (const [op, args] of Object.entries(modifier)) {
    const operator = DIRECT_OPERATORS.get(op);
    if (operator) operator(args)(doc);
  }
}

function parsePipeline(pipeline: unknown[]): Document[] {
  return pipeline.map((stage) => {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new EmbeddedServerError(ErrorCode.FailedToParse, 'each update pipeline stage must be an object with exactly one stage operator');
    }
    return deepCopy(stage);
  });
}

function applyPipeline(docs: Document[], pipeline: unknown[]): Document[] {
  const stages = parsePipeline(pipeline);
  const ids = docs.map((d) => valueKey(d._id));
  const working = [...docs];
  updateMany(working, {}, stages as Parameters<typeof updateMany>[2], { cloneMode: 'deep' });
  return working.map((doc, i) => {
    const next = dropUndefinedFields(doc) as Document;
    if (valueKey(next._id) !== ids[i]) throw immutableId();
    return next;
  });
}

/** Rejects what the driver or server rejects before touching any document. */
export function validateUpdate(update: unknown): void {
  if (Array.isArray(update)) parsePipeline(update);
  else assertNoConflicts(parseModifier(update));
}

/**
 * Updates copies of stored documents (the caller's copies are changed or replaced) and returns
 * the new versions in the same order. Throws on an invalid update; the stored originals are
 * never touched.
 */
export function applyUpdate(copies: Document[], update: unknown, options: ApplyUpdateOptions): Document[] {
  if (Array.isArray(update)) return applyPipeline(copies, update);
  const modifier = parseModifier(update);
  assertNoConflicts(modifier);
  if (!options.inserting) {
    // On a matched document the server ignores $setOnInsert.
    delete modifier.$setOnInsert;
    if (Object.keys(modifier).length === 0) return copies;
  }
  return applyModifier(copies, modifier, options);
}
