// Schema pieces shared by every endpoint. Every string is length-bounded.
export const MAX_NAME = 256;

export const repoSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['host', 'owner', 'name'],
  properties: {
    host: { type: 'string', minLength: 1, maxLength: MAX_NAME, pattern: '^[A-Za-z0-9.:-]+$' },
    owner: { type: 'string', minLength: 1, maxLength: MAX_NAME, pattern: '^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$' },
    name: { type: 'string', minLength: 1, maxLength: MAX_NAME, pattern: '^[A-Za-z0-9._-]+$' },
  },
} as const;

/** Git ref names: no control characters, spaces, `..`, `~^:?*[\`, and not starting with `-`. */
export const branchSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_NAME,
  pattern: '^(?!-)(?!.*\\.\\.)(?!.*//)(?!/)(?!.*/$)(?!.*\\.lock$)(?!.*@\\{)[^\\x00-\\x20~^:?*\\[\\\\\\x7f]+$',
} as const;

export const prNumberSchema = { type: 'integer', minimum: 0, maximum: 4294967295 } as const;
export const uint32 = { type: 'integer', minimum: 0, maximum: 4294967295 } as const;
