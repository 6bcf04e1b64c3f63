// Dashboard sessions: started when a person signs in, resumed on each request by the cookie's
// opaque id, ended by signing out or by expiry — idle (no request for SESSION_IDLE_MINUTES) or
// absolute (SESSION_MAX_HOURS after sign-in, however busy). Each sign-in makes a new id, so an id
// planted in a browser before sign-in is never the one that signs in (no session fixation).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PersonActor } from '../../platform/accounts/actor.js';
import type { Role } from '../../platform/accounts/roles.js';
import type { Session, SessionRepository, SessionRole, SignedInPerson } from '../store/session-repository.js';

export interface SessionSettings {
  idleMs: number;
  maxMs: number;
}

/** The cookie's value: 32 random bytes. */
const newSecret = () => randomBytes(32).toString('base64url');
export const sessionKeyOf = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Activity is written at most this often, so a busy dashboard does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export interface StartedSession {
  /** The cookie's value: given to the browser once, never stored. */
  secret: string;
  session: Session;
}

export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    readonly settings: SessionSettings,
  ) {}

  async start(init: { orgId: string; person: SignedInPerson; role: SessionRole }, now = new Date()): Promise<StartedSession> {
    const secret = newSecret();
    const session: Session = {
      key: sessionKeyOf(secret),
      orgId: init.orgId,
      person: init.person,
      role: init.role,
      csrfToken: randomBytes(24).toString('base64url'),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.settings.maxMs),
    };
    await this.sessions.insert(session);
    // Abandoned sessions go when someone next signs in; a session past its end is refused anyway.
    await this.sessions.purgeExpired(now, this.settings.idleMs);
    return { secret, session };
  }

  /** The live session of a cookie's value; null when there is none or it has expired (then it is removed). */
  async resume(secret: string, now = new Date()): Promise<Session | null> {
    if (secret.length === 0 || secret.length > 256) return null;
    const session = await this.sessions.find(sessionKeyOf(secret));
    if (!session) return null;
    if (this.expired(session, now)) {
      await this.sessions.delete(session.key);
      return null;
    }
    if (now.getTime() - session.lastSeenAt.getTime() >= Math.min(TOUCH_EVERY_MS, this.settings.idleMs / 4)) {
      if (!(await this.sessions.touch(session.key, now))) return null;
    }
    return session;
  }

  /** Signs out; false when there was no such session. */
  async end(secret: string): Promise<boolean> {
    return this.sessions.delete(sessionKeyOf(secret));
  }

  private expired(session: Session, now: Date): boolean {
    return session.expiresAt <= now || now.getTime() - session.lastSeenAt.getTime() >= this.settings.idleMs;
  }
}

/** The session's role for the whole organisation; null when it has one per repository (GitHub). */
export const orgRoleOf = (session: Session): Role | null => (session.role === 'per_repository' ? null : session.role);

/** The actor a request of the session acts as, with the role it holds for that request. */
export function personActorOf(session: Session, role: Role): PersonActor {
  return {
    kind: 'person',
    orgId: session.orgId,
    personId: session.person.personId,
    name: session.person.name,
    provider: session.person.provider,
    role,
    githubLogin: session.role === 'per_repository' ? session.person.login : null,
  };
}

/** Whether a request carries the session's CSRF token (compared in constant time). */
export function carriesCsrfToken(session: Session, presented: string): boolean {
  const wanted = Buffer.from(session.csrfToken);
  const given = Buffer.from(presented);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
