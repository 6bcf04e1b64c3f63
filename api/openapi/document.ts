// The OpenAPI 3.1 description of this service, generated from the operations table and so from
// the same TypeBox schemas that validate requests. Built once; served by GET /v1/openapi.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TSchema } from 'typebox';
import { CASE_INSENSITIVE_ENUM } from '../validation/validator.js';
import { OPERATIONS, TAGS, type Answer, type Operation, type RequestBody } from './operations.js';
import { packageRoot } from '../../shared/platform/runtime/package-root.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ERROR = { $ref: '#/components/responses/Error' };

/**
 * A request schema as a plain JSON Schema. The validator's own keyword becomes a standard enum
 * that lists the lowercase and UPPERCASE forms (any letter case is accepted, and the value is
 * stored lowercase), flagged `x-case-insensitive`.
 */
export function toJsonSchema(schema: TSchema): JsonObject {
  const rewrite = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === CASE_INSENSITIVE_ENUM && Array.isArray(value)) {
        const lower = value.map(String);
        out.enum = [...lower, ...lower.map((v) => v.toUpperCase())];
        out['x-case-insensitive'] = true;
      } else {
        out[key] = rewrite(value);
      }
    }
    return out;
  };
  // JSON round trip: TypeBox's own markers are not enumerable and stay behind.
  return rewrite(JSON.parse(JSON.stringify(schema)) as Json) as JsonObject;
}

function content(answer: Answer): JsonObject {
  const mediaType = answer.kind === 'json' ? 'application/json' : answer.contentType;
  return { [mediaType]: { schema: toJsonSchema(answer.schema) } };
}

function parameters(schema: TSchema, where: 'query' | 'path' | 'header'): Json[] {
  const object = toJsonSchema(schema) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

function requestParts(request: RequestBody | undefined): JsonObject {
  if (!request) return {};
  switch (request.kind) {
    case 'json':
      return { requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(request.schema) } } } };
    case 'query':
      return { parameters: parameters(request.schema, 'query') };
    case 'multipart':
      return {
        requestBody: { required: true, content: { 'multipart/form-data': { schema: toJsonSchema(request.schema), encoding: request.encoding } } },
      };
    case 'binary':
      return {
        parameters: [...parameters(request.pathParams, 'path'), ...parameters(request.query, 'query')],
        requestBody: {
          required: true,
          description: request.description,
          content: { [request.contentType]: { schema: { type: 'string', contentMediaType: request.contentType } } },
        },
      };
    case 'signed':
      return {
        parameters: parameters(request.headers, 'header'),
        requestBody: { required: true, description: request.description, content: { [request.contentType]: { schema: { type: 'object' } } } },
      };
  }
}

function operationObject(op: Operation): JsonObject {
  const responses: JsonObject = { '200': { description: 'OK', content: content(op.ok) } };
  for (const [status, other] of Object.entries(op.otherAnswers ?? {})) responses[status] = { description: other.description, content: content(other.answer) };
  if (op.request) responses['400'] = ERROR;
  if (op.access !== 'public') responses['401'] = ERROR;
  if (op.access !== 'public' && op.access !== 'read') responses['403'] = ERROR;
  responses.default = ERROR;
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.compatible ? {} : { 'x-openmq-addition': true }),
    security: op.access === 'public' ? [] : [{ ApiToken: [] }],
    ...(op.access === 'public' ? {} : { 'x-openmq-role': op.access }),
    ...requestParts(op.request),
    responses,
  };
}

// From the package's root, not this file: compiled, this module lies one directory deeper (dist/).
const { version } = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };

function buildDocument(): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'openmq',
      version,
      description:
        'A self-hostable merge queue and flaky-test service, wire-compatible with the hosted v1 API. Operations marked `x-openmq-addition` are this service\'s own; the others follow the compatible API. Errors are JSON: `{"error": {"code", "message", "details", "requestId"}}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    tags: Object.values(TAGS).map((name) => ({ name })),
    security: [{ ApiToken: [] }],
    paths,
    components: {
      securitySchemes: { ApiToken: { type: 'apiKey', in: 'header', name: 'x-api-token', description: 'A token from `npm run token -- create`.' } },
      schemas: {
        Error: {
          type: 'object',
          additionalProperties: false,
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              additionalProperties: false,
              required: ['code', 'message', 'details', 'requestId'],
              properties: {
                code: { type: 'string', description: 'snake_case and stable: clients may branch on it' },
                message: { type: 'string' },
                details: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['path', 'message'],
                    properties: {
                      path: { type: 'string', description: 'JSON pointer of the offending field' },
                      message: { type: 'string' },
                      keyword: { type: 'string' },
                    },
                  },
                },
                requestId: { type: 'string' },
              },
            },
          },
        },
      },
      responses: {
        Error: {
          description: 'An error (see docs/api.md for the statuses and codes)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
}

/** Every schema in it is fixed at module load, so the document is built once. */
export const openApiDocument: JsonObject = buildDocument();
