// The bodies of `openmq login`'s two requests: the dashboard's grant and the CLI's exchange.
import Type from 'typebox';
import { ROLES } from '../../shared/platform/accounts/roles.js';
import { MAX_NAME } from '../validation/common.js';
import { compileValidator } from '../validation/validator.js';

/** base64url, as PKCE (RFC 7636) writes verifiers and S256 challenges. */
const base64url = (min: number, max: number) => Type.String({ pattern: '^[A-Za-z0-9_-]+$', minLength: min, maxLength: max });

export const parseCliGrant = compileValidator(
  Type.Object(
    {
      challenge: base64url(43, 43),
      name: Type.String({ minLength: 1, maxLength: MAX_NAME }),
      role: Type.Enum([...ROLES], { type: 'string' }),
    },
    { additionalProperties: false },
  ),
);

export const parseCliExchange = compileValidator(Type.Object({ code: base64url(43, 43), verifier: base64url(43, 128) }, { additionalProperties: false }));
