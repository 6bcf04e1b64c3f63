// The v2 API's contract: the hosted product's published OpenAPI document, kept verbatim in
// openapi/v2/contract.json (docs/api-v2.md says where it comes from). The v2 router takes every
// operation's method, path, parameters and request body from it and validates requests with its
// schemas, so what is served and what is described cannot drift apart.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { packageRoot } from '../../shared/platform/runtime/package-root.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonObject;
}

interface OperationObject {
  operationId: string;
  parameters?: (ParameterObject | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonObject }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonObject }> }>;
}

export interface ContractDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: Record<string, Record<string, Json>>;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ContractParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  /** The JSON type the schema wants, for turning a query string into a value. */
  type: 'integer' | 'boolean' | 'string';
  validate: ValidateFunction;
}

export interface ContractOperation {
  operationId: string;
  method: HttpMethod;
  /** As in the contract, e.g. `/v2/merge-queues/{id}`. */
  path: string;
  parameters: ContractParameter[];
  /** The JSON body's validator; null when the operation takes none. */
  body: ValidateFunction | null;
  /** The 2xx status the contract gives the operation (200, 201, 202 or 204). */
  successStatus: number;
}

/** Where the service serves the contract (no credential needed, like /v1/openapi.json). */
export const V2_DOCUMENT_PATH = '/v2/openapi.json';

export const CONTRACT_PATH = path.join(packageRoot(), 'openapi', 'v2', 'contract.json');
export const contractDocument = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8')) as ContractDocument;

const DOC_ID = 'trunk-v2';
const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: false });
addFormats(ajv);
ajv.addSchema({ $id: DOC_ID, components: contractDocument.components } as unknown as JsonObject);

/** Local references (`#/components/…`) point into the registered document. */
function anchored(value: Json): Json {
  if (Array.isArray(value)) return value.map(anchored);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : anchored(v);
  return out;
}

export const compileContractSchema = (schema: JsonObject): ValidateFunction => ajv.compile(anchored(schema) as JsonObject);

function resolveParameter(p: ParameterObject | { $ref: string }): ParameterObject {
  if (!('$ref' in p)) return p;
  const name = p.$ref.split('/').pop() ?? '';
  const found = contractDocument.components.parameters?.[name] as unknown as ParameterObject | undefined;
  if (!found) throw new Error(`the v2 contract has no parameter ${p.$ref}`);
  return found;
}

function typeOf(schema: JsonObject): ContractParameter['type'] {
  const t = schema.type;
  return t === 'integer' || t === 'boolean' ? t : 'string';
}

function operationsOf(doc: ContractDocument): ContractOperation[] {
  const out: ContractOperation[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = (op.parameters ?? []).map(resolveParameter).map((param): ContractParameter => ({
        name: param.name,
        in: param.in === 'path' ? 'path' : 'query',
        required: param.required === true,
        type: typeOf(param.schema),
        validate: compileContractSchema(param.schema),
      }));
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const success = Object.keys(op.responses).find((s) => /^2\d\d$/.test(s));
      if (!success) throw new Error(`v2 contract: ${op.operationId} has no success answer`);
      out.push({
        operationId: op.operationId,
        method,
        path: p,
        parameters,
        body: bodySchema ? compileContractSchema(bodySchema) : null,
        successStatus: Number(success),
      });
    }
  }
  return out;
}

export const CONTRACT_OPERATIONS: readonly ContractOperation[] = operationsOf(contractDocument);

/** Ajv's findings as one line a client can act on. */
export function describeErrors(errors: ErrorObject[] | null | undefined, where: string): string {
  return (errors ?? []).map((e) => `${where}${e.instancePath} ${e.message ?? 'is invalid'}`).join('; ');
}
