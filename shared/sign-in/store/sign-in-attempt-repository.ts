// Sign-ins under way: what the callback needs to finish one (the PKCE verifier, the nonce, the
// page to land on), stored under the SHA-256 of the `state` sent to the provider. Each is taken
// once: a replayed or forged callback finds nothing.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { SignInProvider } from '../../platform/accounts/actor.js';

export interface SignInAttempt {
  /** SHA-256 of the `state` parameter. */
  key: string;
  provider: SignInProvider;
  codeVerifier: string;
  nonce: string;
  /** The dashboard path to open once signed in. */
  next: string;
  /** The redirect URI sent with the authorization request (the token request repeats it). */
  redirectUri: string;
  expiresAt: Date;
}

interface AttemptDoc extends StoredDoc, Omit<SignInAttempt, 'key'> {}

export const SIGN_IN_ATTEMPT_INDEXES: IndexSpec[] = [{ key: { expiresAt: 1 }, name: 'expires', comment: 'purge abandoned sign-ins' }];

export interface SignInAttemptRepository {
  insert(attempt: SignInAttempt): Promise<void>;
  /** The attempt, removed so that it cannot be used again; null when there is none (or another request took it). */
  take(key: string): Promise<SignInAttempt | null>;
  purgeExpired(now: Date): Promise<number>;
}

export class DbSignInAttemptRepository implements SignInAttemptRepository {
  private readonly col: DocCollection<AttemptDoc>;
  constructor(db: Database) {
    this.col = db.collection<AttemptDoc>('sign_in_attempts');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(SIGN_IN_ATTEMPT_INDEXES);
  }

  async insert({ key, ...rest }: SignInAttempt): Promise<void> {
    await this.col.insertOne({ _id: key, ...rest });
  }

  async take(key: string): Promise<SignInAttempt | null> {
    const doc = await this.col.findOne({ _id: key });
    // The delete decides who took it: of two concurrent callbacks only one deletes.
    if (!doc || (await this.col.deleteOne({ _id: key })).deletedCount !== 1) return null;
    const { _id, ...rest } = doc;
    return { key: _id, ...rest };
  }

  async purgeExpired(now: Date): Promise<number> {
    return (await this.col.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }
}
