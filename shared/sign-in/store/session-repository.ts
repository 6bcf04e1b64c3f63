// Dashboard sessions, kept on the server. The browser holds only an opaque random id in a cookie;
// the database holds its SHA-256, so a copy of the database signs nobody in.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { SignInProvider } from '../../platform/accounts/actor.js';
import type { Role } from '../../platform/accounts/roles.js';

/** A role for the whole organisation (an identity provider's), or one per repository read from GitHub at each request. */
export type SessionRole = Role | 'per_repository';

export interface SignedInPerson {
  /** `<provider>:<subject>`: the same person on every sign-in. */
  personId: string;
  provider: SignInProvider;
  /** The provider's stable id of the person (the ID token's `sub`, GitHub's user id). */
  subject: string;
  /** The GitHub login, for reading their permissions; null for other providers. */
  login: string | null;
  /** As the audit trail shows it. */
  name: string;
  email: string | null;
}

export interface Session {
  /** SHA-256 of the cookie's value. */
  key: string;
  orgId: string;
  person: SignedInPerson;
  role: SessionRole;
  /** Sent back by the dashboard in `x-csrf-token` on every request that can change something. */
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** The absolute end, whatever the activity. */
  expiresAt: Date;
}

interface SessionDoc extends StoredDoc, Omit<Session, 'key'> {}

export const SESSION_INDEXES: IndexSpec[] = [
  { key: { expiresAt: 1 }, name: 'expires', comment: 'purge sessions past their absolute end' },
  { key: { 'person.personId': 1 }, name: 'person', comment: "a person's sessions" },
];

const toSession = ({ _id, ...rest }: SessionDoc): Session => ({ key: _id, ...rest });

export interface SessionRepository {
  insert(session: Session): Promise<void>;
  find(key: string): Promise<Session | null>;
  /** Records activity; false when the session is gone. */
  touch(key: string, at: Date): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  /** Removes sessions whose absolute end or idle end is before `now`. */
  purgeExpired(now: Date, idleMs: number): Promise<number>;
}

export class DbSessionRepository implements SessionRepository {
  private readonly col: DocCollection<SessionDoc>;
  constructor(db: Database) {
    this.col = db.collection<SessionDoc>('sessions');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(SESSION_INDEXES);
  }

  async insert({ key, ...rest }: Session): Promise<void> {
    await this.col.insertOne({ _id: key, ...rest });
  }

  async find(key: string): Promise<Session | null> {
    const doc = await this.col.findOne({ _id: key });
    return doc ? toSession(doc) : null;
  }

  async touch(key: string, at: Date): Promise<boolean> {
    return (await this.col.updateOne({ _id: key }, { $set: { lastSeenAt: at } })).matchedCount === 1;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.col.deleteOne({ _id: key })).deletedCount === 1;
  }

  async purgeExpired(now: Date, idleMs: number): Promise<number> {
    const idleSince = new Date(now.getTime() - idleMs);
    const { deletedCount } = await this.col.deleteMany({ $or: [{ expiresAt: { $lte: now } }, { lastSeenAt: { $lte: idleSince } }] });
    return deletedCount;
  }
}
