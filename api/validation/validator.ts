// One Ajv instance for every request schema. Schemas are TypeBox definitions (so a handler's type
// is Static<typeof Schema> and cannot disagree with what is checked), compiled once at module
// load; handlers receive typed, validated values. Bodies are strict: unknown fields, wrong types
// and objects in place of strings are 400s — never query operators.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';
import { invalid, type ErrorDetail } from '../../shared/platform/errors.js';
import { isDateTime } from './date-time.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv, opts?: { mode: 'fast' | 'full'; formats?: string[] }) => Ajv;

export const ajv = new Ajv({ allErrors: false, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv, { mode: 'fast', formats: ['uuid', 'uri'] });
ajv.addFormat('date-time', { type: 'string', validate: isDateTime });

/** The keyword of a lowercase enum that accepts any letter case (see common.ts, caseInsensitiveEnum). */
export const CASE_INSENSITIVE_ENUM = 'caseInsensitiveEnum';

/**
 * `caseInsensitiveEnum: [...]` — a lowercase enum that also accepts other letter cases on input
 * (the compatible API accepted UPPERCASE); the value is rewritten to lowercase in place.
 */
ajv.addKeyword({
  keyword: CASE_INSENSITIVE_ENUM,
  type: 'string',
  modifying: true,
  errors: true,
  schemaType: 'array',
  validate: function validateCaseInsensitiveEnum(
    schema: string[],
    data: string,
    _parentSchema?: unknown,
    ctx?: { parentData: Record<string, unknown> | unknown[]; parentDataProperty: string | number },
  ): boolean {
    const lower = data.toLowerCase();
    const ok = schema.includes(lower);
    if (ok && ctx && lower !== data) {
      (ctx.parentData as Record<string | number, unknown>)[ctx.parentDataProperty] = lower;
    }
    if (!ok) {
      (validateCaseInsensitiveEnum as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'enum', message: `must be one of: ${schema.join(', ')}`, params: { allowedValues: schema } },
      ];
    }
    return ok;
  },
});

function toDetails(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).map((e) => {
    let path = e.instancePath || '';
    // Point at the offending property itself rather than its parent object.
    if (e.keyword === 'required') path = `${path}/${String((e.params as { missingProperty: string }).missingProperty)}`;
    if (e.keyword === 'additionalProperties') path = `${path}/${String((e.params as { additionalProperty: string }).additionalProperty)}`;
    const message = e.keyword === 'additionalProperties' ? 'is not a known field' : e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid');
    return { path: path || '/', message, keyword: e.keyword };
  });
}

export interface Validator<T> {
  (data: unknown): T;
}

/** Compiles `schema` once and returns a function that returns typed data or throws a 400. */
export function compileValidator<S extends TSchema>(schema: S): Validator<Static<S>> {
  const validate = ajv.compile(schema) as ValidateFunction<Static<S>>;
  return (data: unknown): Static<S> => {
    if (validate(data)) return data;
    const details = toDetails(validate.errors);
    const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
    throw invalid('invalid_request', `the request is invalid: ${summary}`, details);
  };
}
