// One Ajv instance for request bodies. Schemas are compiled once, at module load, and
// handlers receive typed, validated values. Bodies are strict: unknown fields, wrong types and
// objects in place of strings are 400s — never query operators.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { invalid, type ErrorDetail } from '../../shared/errors.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv, opts?: { mode: 'fast' | 'full'; formats?: string[] }) => Ajv;

export const ajv = new Ajv({ allErrors: false, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv, { mode: 'fast', formats: ['date-time', 'uuid', 'uri'] });

/**
 * `caseInsensitiveEnum: [...]` — a lowercase enum that also accepts other letter cases on input
 * (the compatible API accepted UPPERCASE); the value is rewritten to lowercase in place.
 */
ajv.addKeyword({
  keyword: 'caseInsensitiveEnum',
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
    const message =
      e.keyword === 'additionalProperties'
        ? 'is not a known field'
        : e.keyword === 'required'
          ? 'is required'
          : (e.message ?? 'is invalid');
    return { path: path || '/', message, keyword: e.keyword };
  });
}

export interface Validator<T> {
  (data: unknown): T;
}

/** Compiles `schema` once and returns a function that returns typed data or throws a 400. */
export function compileValidator<T>(schema: object): Validator<T> {
  const validate = ajv.compile(schema) as ValidateFunction<T>;
  return (data: unknown): T => {
    if (validate(data)) return data;
    const details = toDetails(validate.errors);
    const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
    throw invalid('invalid_request', `the request is invalid: ${summary}`, details);
  };
}
