// The end of every sign-in, whichever provider: a person with no role is refused, anyone else gets
// a new session in the organisation sign-in serves (SIGN_IN_ORG), and the audit trail records who
// signed in and out. A sign-in also brings the person's personal tokens in line with what the
// provider says now: none left for a person without a role, none above the role they hold.
import type { AuditActor, AuditTrail } from '../../platform/audit/audit-log.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import type { TokenRepository } from '../../platform/accounts/token-repository.js';
import type { Logger } from '../../platform/logging.js';
import type { Session, SignedInPerson } from '../store/session-repository.js';
import type { SessionService, StartedSession } from './session-service.js';
import type { Completed } from './oidc-sign-in.js';
import { SignInError } from './sign-in-error.js';

/** Signing in and out is the person's own act, whatever role they hold. */
const auditActorOfPerson = (person: SignedInPerson): AuditActor => ({ kind: 'person', tokenId: null, name: person.name });

export class SignInService {
  constructor(
    private readonly deps: {
      orgSlug: string;
      orgs: Pick<OrgRepository, 'ensure'>;
      sessions: SessionService;
      tokens: Pick<TokenRepository, 'limitOwnedBy'>;
      audit: AuditTrail;
      logger: Logger;
    },
  ) {}

  async finish(completed: Completed, now = new Date()): Promise<StartedSession> {
    const { person, role } = completed;
    // A person with roles per repository (GitHub) holds no personal tokens to bring in line.
    const limited = role === 'per_repository' ? 0 : await this.deps.tokens.limitOwnedBy(person.personId, role, now);
    if (limited > 0) this.deps.logger.info({ personId: person.personId, role, tokens: limited }, "personal tokens brought down to the person's role");
    if (role === null) {
      throw new SignInError('no_access', `${person.name} (${person.personId}) holds none of the values that grant a role`);
    }
    const org = await this.deps.orgs.ensure(this.deps.orgSlug, now);
    const started = await this.deps.sessions.start({ orgId: org.id, person, role }, now);
    await this.deps.audit.record(
      { orgId: org.id, actor: auditActorOfPerson(person), action: 'person.signed_in', target: person.personId, detail: { role, provider: person.provider } },
      now,
    );
    this.deps.logger.info({ personId: person.personId, role }, 'signed in');
    return started;
  }

  async signOut(session: Session, secret: string, now = new Date()): Promise<void> {
    if (!(await this.deps.sessions.end(secret))) return;
    await this.deps.audit.record(
      { orgId: session.orgId, actor: auditActorOfPerson(session.person), action: 'person.signed_out', target: session.person.personId, detail: {} },
      now,
    );
  }
}
