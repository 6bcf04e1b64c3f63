// Validates response bodies against the compatible API's OpenAPI document
// (test/fixtures/trunk-openapi.json), so the wire contract is checked on every response.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { expect } from 'chai';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const SPEC_URL = new URL('../fixtures/trunk-openapi.json', import.meta.url);

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object | null }> }> }>>;
}

const spec = JSON.parse(readFileSync(SPEC_URL, 'utf8')) as OpenApiDoc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const cache = new Map<string, ValidateFunction | null>();

function validatorFor(path: string, method: string, status: number, mediaType: string): ValidateFunction | null {
  const key = `${method} ${path} ${status} ${mediaType}`;
  if (!cache.has(key)) {
    const op = spec.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`the OpenAPI document has no ${method} ${path}`);
    const content = op.responses?.[String(status)]?.content?.[mediaType];
    if (!content) throw new Error(`the OpenAPI document has no ${status} ${mediaType} response for ${method} ${path}`);
    cache.set(key, content.schema ? ajv.compile(content.schema) : null);
  }
  return cache.get(key) ?? null;
}

/**
 * Asserts that `body` matches the documented 200 response of `method path`. A response
 * documented without a schema must be the empty object the service answers for mutations.
 */
export function expectOpenApiResponse(path: string, body: unknown, method = 'POST'): void {
  const validate = validatorFor(path, method, 200, 'application/json');
  if (!validate) {
    expect(body, `${path} answers {}`).to.deep.equal({});
    return;
  }
  const ok = validate(body);
  expect(ok, `${path} response does not match the OpenAPI schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`).to.equal(true);
}

/** Paths of the OpenAPI document. */
export function openApiPaths(): string[] {
  return Object.keys(spec.paths);
}

/** Every operation of the OpenAPI document (path and upper-case method), for coverage checks. */
export function openApiOperations(): { path: string; method: string }[] {
  return Object.entries(spec.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ path, method: method.toUpperCase() })));
}

/** This service's own description (GET /v1/openapi.json). */
export interface ServiceDoc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
}

const serviceValidators = new Map<string, ValidateFunction>();

/**
 * Asserts that `body`, answered `status` (200 unless given) with `contentType` by `method path`,
 * matches the answer this service's own description gives for that operation, status and media type.
 */
export function expectDescribedAnswer(doc: ServiceDoc, method: string, path: string, contentType: string, body: unknown, status = 200): void {
  const content = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.content ?? {};
  const mediaType = Object.keys(content).find((m) => contentType.startsWith(m));
  expect(mediaType, `${method} ${path} answered ${contentType}; described: ${Object.keys(content).join(', ')}`).to.be.a('string');
  const key = `${method} ${path} ${status} ${mediaType}`;
  let validate = serviceValidators.get(key);
  if (!validate) {
    validate = ajv.compile(content[mediaType!]!.schema);
    serviceValidators.set(key, validate);
  }
  const ok = validate(body);
  expect(ok, `${method} ${path} does not match its description: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`).to.equal(true);
}
