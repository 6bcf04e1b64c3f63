// Checks the double's traffic against GitHub's official REST description (the committed subset
// of @octokit/openapi): every request the provider sends (path and query parameters, JSON body)
// and every response the double returns (per status code). OpenAPI 3.0 writes `nullable: true`
// where JSON Schema wants a `null` type, so schemas are rewritten before Ajv sees them.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { GITHUB_OPERATIONS, type GitHubOperation, type HttpMethod } from './operations.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonObject;
}

interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonObject }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema?: JsonObject; examples?: Record<string, { $ref?: string; value?: Json }> }> }>;
}

interface Spec {
  paths: Record<string, Partial<Record<HttpMethod, Operation>>>;
  components: Record<string, Record<string, Json>>;
}

const spec = JSON.parse(readFileSync(new URL('./openapi-subset.json', import.meta.url), 'utf8')) as Spec;

/** `nullable: true` → a `null` alternative, recursively (OpenAPI 3.0 → JSON Schema). */
function rewriteNullable(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewriteNullable);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'nullable') out[key] = rewriteNullable(v);
  }
  if (value.nullable !== true) return out;
  if (typeof out.type === 'string' && out.enum === undefined) return { ...out, type: [out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

const DOC_ID = 'github-openapi';
const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: false });
addFormats(ajv);
// GitHub's own format for "owner/name".
ajv.addFormat('repo.nwo', /^[^/]+\/[^/]+$/);
ajv.addSchema({ $id: DOC_ID, components: rewriteNullable(spec.components as unknown as Json) } as unknown as JsonObject);

const validators = new Map<string, ValidateFunction>();

function compile(key: string, schema: JsonObject): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    // Local references (`#/components/...`) point into the registered document.
    const text = JSON.stringify(rewriteNullable(schema)).replaceAll('"$ref":"#/', `"$ref":"${DOC_ID}#/`);
    v = ajv.compile(JSON.parse(text) as JsonObject);
    validators.set(key, v);
  }
  return v;
}

function resolveRef<T>(ref: string): T {
  const [, , kind = '', name = ''] = ref.split('/');
  const found = spec.components[kind]?.[name];
  if (found === undefined) throw new Error(`the OpenAPI subset has no ${ref}`);
  return found as T;
}

function deref<T extends object>(value: T | { $ref: string }): T {
  return '$ref' in value && typeof value.$ref === 'string' ? resolveRef<T>(value.$ref) : (value as T);
}

export interface MatchedOperation extends GitHubOperation {
  params: Record<string, string>;
}

/** Parameters that may contain slashes in GitHub's routes. */
const GREEDY = new Set(['ref', 'path']);

const matchers = GITHUB_OPERATIONS.map((op) => {
  const names: string[] = [];
  const source = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return GREEDY.has(name) ? '(.+)' : '([^/]+)';
  });
  return { op, names, re: new RegExp(`^${source}$`) };
});

/** The documented operation a request is for, or null (an unexpected route). */
export function matchOperation(method: string, pathname: string): MatchedOperation | null {
  for (const { op, names, re } of matchers) {
    if (op.method !== method.toLowerCase()) continue;
    const m = re.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
    return { ...op, params };
  }
  return null;
}

function operationOf(op: GitHubOperation): Operation {
  const found = spec.paths[op.path]?.[op.method];
  if (!found) throw new Error(`the OpenAPI subset has no ${op.method} ${op.path}`);
  return found;
}

function coerce(raw: string, schema: JsonObject): Json {
  if (schema.type === 'integer' || schema.type === 'number') return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (schema.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

/** Problems with a request: parameters and body against the operation's description. */
export function requestProblems(op: MatchedOperation, query: URLSearchParams, body: Json | undefined): string[] {
  const operation = operationOf(op);
  const problems: string[] = [];
  const declared = (operation.parameters ?? []).map((p) => deref<Parameter>(p));
  for (const name of query.keys()) {
    if (!declared.some((p) => p.in === 'query' && p.name === name)) problems.push(`undocumented query parameter ${name}`);
  }
  for (const p of declared) {
    if (p.in === 'header') continue;
    const raw = p.in === 'path' ? op.params[p.name] : query.get(p.name);
    if (raw === undefined || raw === null) {
      if (p.required) problems.push(`missing ${p.in} parameter ${p.name}`);
      continue;
    }
    const validate = compile(`param ${op.method} ${op.path} ${p.name}`, p.schema);
    if (!validate(coerce(raw, p.schema))) problems.push(`${p.in} parameter ${p.name}=${raw}: ${ajv.errorsText(validate.errors)}`);
  }
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  if (body !== undefined) {
    if (!bodySchema) problems.push('a body the operation does not take');
    else {
      // A field GitHub does not know is silently ignored there; here it is a mistake to report.
      const strict = { ...bodySchema, additionalProperties: false };
      const validate = compile(`body ${op.method} ${op.path}`, strict);
      if (!validate(body)) problems.push(`body: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return problems;
}

type Response = Operation['responses'][string];

function responseOf(op: GitHubOperation, status: number): Response | null {
  const found = operationOf(op).responses[String(status)];
  if (!found) return null;
  return found.$ref ? resolveRef<Response>(found.$ref) : found;
}

/** Problems with a response: an undocumented status, or a body that does not match its schema. */
export function responseProblems(op: GitHubOperation, status: number, body: Json | undefined): string[] {
  const response = responseOf(op, status);
  if (!response) return [`status ${status} is not documented for ${op.method.toUpperCase()} ${op.path}`];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return body === undefined ? [] : [`a body where ${status} documents none`];
  const validate = compile(`response ${op.method} ${op.path} ${status}`, schema);
  return validate(body ?? null) ? [] : [`response ${status}: ${ajv.errorsText(validate.errors)}`];
}

/** GitHub's documented example of a response, the starting point of the double's answers. */
export function documentedExample<T>(op: GitHubOperation, status: number, name?: string): T {
  const examples = responseOf(op, status)?.content?.['application/json']?.examples ?? {};
  const entry = name ? examples[name] : Object.values(examples)[0];
  if (!entry) throw new Error(`no documented example ${name ?? ''} for ${status} ${op.method} ${op.path}`);
  const value = entry.$ref ? resolveRef<{ value: T }>(entry.$ref).value : (entry.value as T);
  return structuredClone(value);
}
