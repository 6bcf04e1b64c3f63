// Schema pieces shared by every endpoint (TypeBox: each is a JSON Schema and a static type).
// Every string is length-bounded.
import Type, { type TUnsafe } from 'typebox';
import { CASE_INSENSITIVE_ENUM } from './validator.js';

export const MAX_NAME = 256;

export const REPO_OWNER_PATTERN = '[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*';
export const REPO_NAME_PATTERN = '[A-Za-z0-9._-]+';

export const repoHostSchema = Type.String({ minLength: 1, maxLength: MAX_NAME, pattern: '^[A-Za-z0-9.:-]+$' });

export const repoSchema = Type.Object(
  {
    host: repoHostSchema,
    owner: Type.String({ minLength: 1, maxLength: MAX_NAME, pattern: `^${REPO_OWNER_PATTERN}$` }),
    name: Type.String({ minLength: 1, maxLength: MAX_NAME, pattern: `^${REPO_NAME_PATTERN}$` }),
  },
  { additionalProperties: false },
);

/** Git ref names: no control characters, spaces, `..`, `~^:?*[\`, and not starting with `-`. */
export const branchSchema = Type.String({
  minLength: 1,
  maxLength: MAX_NAME,
  pattern: '^(?!-)(?!.*\\.\\.)(?!.*//)(?!/)(?!.*/$)(?!.*\\.lock$)(?!.*@\\{)[^\\x00-\\x20~^:?*\\[\\\\\\x7f]+$',
});

export const uint32 = Type.Integer({ minimum: 0, maximum: 4294967295 });
export const prNumberSchema = uint32;

/** A strict RFC 3339 date-time (api/validation/date-time.ts). */
export const dateTimeSchema = (maxLength = 64) => Type.String({ format: 'date-time', maxLength });

/**
 * A lowercase enum that accepts any letter case on input and is lowercased by the validator, so
 * its static type is the lowercase union.
 */
export function caseInsensitiveEnum<const V extends readonly string[]>(values: V, maxLength: number): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>(Type.String({ maxLength, [CASE_INSENSITIVE_ENUM]: [...values] }));
}
