// `openmq login`: a person signed in to the dashboard gives the CLI on their machine a personal
// token. The CLI listens on a loopback port and opens the dashboard's /cli-login page with a PKCE
// challenge; the person approves there (grant), the page sends a one-time code to the CLI's
// loopback address, and the CLI exchanges the code with its verifier (exchange). The token never
// travels in a URL, and a code seen by anyone else is useless without the verifier.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors.js';
import type { TokenService, CreatedToken } from '../../platform/accounts/token-service.js';
import { roleAllows, type Role } from '../../platform/accounts/roles.js';
import type { Session } from '../store/session-repository.js';
import type { CliGrantRepository } from '../store/cli-grant-repository.js';
import { orgRoleOf, personActorOf } from './session-service.js';
import { pkceChallenge } from './sign-in-attempts.js';

/** How long the CLI has to collect its token after the person approved. */
export const GRANT_TTL_MS = 2 * 60_000;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8');

const invalidCode = () =>
  new AppError('invalid', 'invalid_grant', 'the code is unknown, expired, already used, or not for this verifier: run `openmq login` again');

export class CliLogin {
  constructor(
    private readonly grants: CliGrantRepository,
    private readonly tokens: Pick<TokenService, 'createPersonal'>,
  ) {}

  /** The person approves: a one-time code for the CLI. The role is checked again at exchange. */
  async grant(session: Session, init: { challenge: string; name: string; role: Role }, now = new Date()): Promise<{ code: string }> {
    // With roles per repository (GitHub) the token's role is a cap, bounded at each use by the
    // person's permission on the repository (repository-scope.ts).
    const held = orgRoleOf(session);
    if (held !== null && !roleAllows(held, init.role)) {
      throw new AppError('forbidden', 'role_above_your_own', `a personal token can have at most your own role (${held}), not ${init.role}`);
    }
    const code = randomBytes(32).toString('base64url');
    await this.grants.purgeExpired(now);
    await this.grants.insert({
      key: sha256(code).digest('hex'),
      person: personActorOf(session, held ?? 'read'),
      challenge: init.challenge,
      name: init.name,
      role: init.role,
      expiresAt: new Date(now.getTime() + GRANT_TTL_MS),
    });
    return { code };
  }

  /** The CLI collects its token. */
  async exchange(code: string, verifier: string, now = new Date()): Promise<CreatedToken & { orgId: string }> {
    const grant = await this.grants.take(sha256(code).digest('hex'));
    if (!grant || grant.expiresAt <= now || pkceChallenge(verifier) !== grant.challenge) throw invalidCode();
    const created = await this.tokens.createPersonal(grant.person, { name: grant.name, role: grant.role }, now);
    return { ...created, orgId: grant.person.orgId };
  }
}
