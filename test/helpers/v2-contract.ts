// Checks the v2 API's answers against the hosted product's contract, kept in the project at
// openapi/v2/contract.json (where it comes from: docs/api-v2.md): every answer a test receives —
// 2xx and 4xx alike — must be a status the contract gives its operation, with the body and media
// type it describes, and carry X-Request-Id. The checking fetch also records which operations the
// tests called, so a suite can require all of them.
import type { ValidateFunction } from 'ajv';
import createClient from 'openapi-fetch';
import type { paths } from '../../openapi/v2/types.js';
import { compileContractSchema, contractDocument, describeErrors } from '../../api/v2/contract.js';

type JsonObject = Parameters<typeof compileContractSchema>[0];

interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: JsonObject }> }>;
}

const contract = contractDocument as unknown as { paths: Record<string, Record<string, Operation>> };

const validators = new Map<string, ValidateFunction>();

/** Every operation of the contract as `METHOD /path`, with its id. */
export const contractOperations = (): { key: string; operationId: string; method: string; path: string }[] =>
  Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => typeof op === 'object' && op !== null && 'operationId' in op)
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, operationId: op.operationId, method: method.toUpperCase(), path })),
  );

/** The operation a request names: its method, and the contract path its path matches (fixed segments first). */
export function operationOfRequest(method: string, pathname: string): { operationId: string; op: Operation } | null {
  const candidates = contractOperations()
    .filter((o) => o.method === method.toUpperCase())
    .sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
  for (const c of candidates) {
    const pattern = new RegExp(`^${c.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return { operationId: c.operationId, op: contract.paths[c.path]?.[c.method.toLowerCase()] as Operation };
  }
  return null;
}

/** Throws unless `status`, `contentType` and `body` are an answer the contract gives `method pathname`. */
export function checkAgainstContract(method: string, pathname: string, status: number, contentType: string, body: unknown): string {
  const found = operationOfRequest(method, pathname);
  if (!found) throw new Error(`the v2 contract has no operation for ${method} ${pathname}`);
  const { operationId, op } = found;
  const response = op.responses[String(status)];
  if (!response)
    throw new Error(
      `${operationId} answered ${status}, which the contract does not give it (${Object.keys(op.responses).join(', ')}): ${JSON.stringify(body).slice(0, 300)}`,
    );
  const content = response.content;
  if (!content) {
    if (body !== '' && body !== undefined) throw new Error(`${operationId} ${status} must have no body; it had ${JSON.stringify(body).slice(0, 200)}`);
    return operationId;
  }
  const mediaType = Object.keys(content).find((m) => contentType.startsWith(m));
  if (!mediaType) throw new Error(`${operationId} ${status} answered ${contentType}; the contract says ${Object.keys(content).join(', ')}`);
  const schema = content[mediaType]?.schema;
  if (schema) {
    const key = `${operationId} ${status} ${mediaType}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = compileContractSchema(schema);
      validators.set(key, validate);
    }
    if (!validate(body))
      throw new Error(
        `${operationId} ${status} does not match the contract: ${describeErrors(validate.errors, 'body')}\n${JSON.stringify(body).slice(0, 1500)}`,
      );
  }
  return operationId;
}

/** Operations the checking fetch has seen answered. */
export const calledOperations = new Set<string>();

/** fetch, with every answer checked against the contract before the caller sees it. */
export async function contractCheckingFetch(input: Request): Promise<Response> {
  const res = await fetch(input);
  const url = new URL(input.url);
  if (url.pathname === '/v2/openapi.json') return res;
  if (!res.headers.get('x-request-id')) throw new Error(`${input.method} ${url.pathname} answered without X-Request-Id`);
  const text = await res.clone().text();
  const contentType = res.headers.get('content-type') ?? '';
  const body = contentType.includes('application/json') && text ? (JSON.parse(text) as unknown) : text;
  calledOperations.add(checkAgainstContract(input.method, url.pathname, res.status, contentType, body));
  return res;
}

/** A client generated from the contract (openapi-typescript + openapi-fetch), checking every answer. */
export function v2Client(baseUrl: string, key: string) {
  return createClient<paths>({ baseUrl, fetch: contractCheckingFetch, headers: { authorization: `Bearer ${key}` } });
}

export type V2Client = ReturnType<typeof v2Client>;
