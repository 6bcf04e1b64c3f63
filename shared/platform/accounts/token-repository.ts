// API tokens. Only a SHA-256 hash is stored. Lookup goes through a short prefix of the hash and
// the full hash is then compared with timingSafeEqual, so the comparison itself is constant-time.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../database/collection.js';
import { DEFAULT_ROLE, ROLES, type Role } from './roles.js';
import type { MergeQueuePermission } from './permissions.js';
import type { RepoRef } from '../repo-ref.js';

/** The person a personal token belongs to. */
export interface TokenOwner {
  personId: string;
  /** As the audit trail shows the person. */
  name: string;
  /**
   * A person signed in with GitHub: the login whose permission on the repository a request names
   * bounds the token there (its own role is then a cap). Absent for other people.
   */
  githubLogin?: string;
}

export interface ApiToken {
  id: string;
  orgId: string;
  name: string;
  role: Role;
  /** A personal token's person; null for the organisation's tokens. */
  owner: TokenOwner | null;
  createdAt: Date;
  /** Past this, the token authenticates nothing; null: never (the organisation's tokens). */
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** A v2 API key: the merge-queue permissions it holds (its role is then unused); null for a v1 token. */
  permissions: MergeQueuePermission[] | null;
  /** A GitHub Actions login: the one repository whose impacted targets it may upload; null otherwise. */
  uploadsFor: RepoRef | null;
}

interface TokenDoc extends StoredDoc {
  orgId: string;
  name: string;
  hashPrefix: string;
  hash: string;
  /** Absent on tokens stored before roles existed: DEFAULT_ROLE. */
  role?: Role;
  /** Absent on the organisation's tokens (and on every token stored before personal ones). */
  owner?: TokenOwner;
  createdAt: Date;
  expiresAt?: Date | null;
  revokedAt: Date | null;
  /** Present only on v2 API keys. */
  permissions?: MergeQueuePermission[];
  /** Present only on the short-lived tokens of a GitHub Actions login. */
  uploadsFor?: RepoRef;
}

export const TOKEN_INDEXES: IndexSpec[] = [
  { key: { hashPrefix: 1 }, name: 'hash_prefix', comment: 'authenticate a request: candidates by hash prefix' },
  { key: { hash: 1 }, name: 'hash_unique', unique: true, comment: 'register API_TOKEN idempotently' },
  { key: { orgId: 1, createdAt: 1 }, name: 'org_created', comment: "list an organisation's tokens" },
  {
    key: { expiresAt: 1 },
    name: 'upload_login_expiry',
    expireAfterSeconds: 0,
    partialFilterExpression: { uploadsFor: { $exists: true } },
    comment: 'GitHub Actions logins are removed once expired',
  },
  { key: { 'owner.personId': 1 }, name: 'owner', comment: "a person's own tokens", partialFilterExpression: { owner: { $exists: true } } },
];

const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
const PREFIX_LENGTH = 12;

const toToken = (d: TokenDoc): ApiToken => ({
  id: d._id,
  orgId: d.orgId,
  name: d.name,
  role: d.role ?? DEFAULT_ROLE,
  owner: d.owner ?? null,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt ?? null,
  revokedAt: d.revokedAt,
  permissions: d.permissions ?? null,
  uploadsFor: d.uploadsFor ?? null,
});

/** A new random token: 32 bytes, base64url, with a recognisable prefix for secret scanners. */
export function generateToken(): string {
  return `omq_${randomBytes(32).toString('base64url')}`;
}

/** A new v2 API key: like a token, with its own prefix (the hosted product's keys start `trunk_v2_`). */
export function generateApiKey(): string {
  return `omq_v2_${randomBytes(32).toString('base64url')}`;
}

/** API tokens as the services see them; only hashes are stored. */
export interface TokenRepository {
  /** A token already stored is left as it is (its role too). */
  register(orgId: string, token: string, name: string, opts?: RegisterOptions): Promise<ApiToken>;
  /** The active, unexpired token matching `token`, or null. */
  authenticate(token: string, now?: Date): Promise<ApiToken | null>;
  list(orgId: string): Promise<ApiToken[]>;
  /** A person's own tokens, oldest first. */
  listOwnedBy(personId: string): Promise<ApiToken[]>;
  /** Lowers the role of a person's active tokens that stand above `role`; null revokes them all. */
  limitOwnedBy(personId: string, role: Role | null, now?: Date): Promise<number>;
  findById(id: string): Promise<ApiToken | null>;
  countActive(orgId: string): Promise<number>;
  /** False when there is no such active token (in `scope.orgId`, when given). */
  revoke(id: string, scope?: { orgId?: string; now?: Date }): Promise<boolean>;
}

export interface RegisterOptions {
  /** Default DEFAULT_ROLE. */
  role?: Role;
  /** A personal token's person. */
  owner?: TokenOwner;
  expiresAt?: Date;
  /** Makes a v2 API key holding these permissions. */
  permissions?: MergeQueuePermission[];
  /** Limits the key to uploading impacted targets of this repository (a GitHub Actions login). */
  uploadsFor?: RepoRef;
  now?: Date;
}

export class DbTokenRepository implements TokenRepository {
  private readonly col: DocCollection<TokenDoc>;
  constructor(db: Database) {
    this.col = db.collection<TokenDoc>('api_tokens');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(TOKEN_INDEXES);
  }

  /** Stores the hash of `token` for the organisation; a token already stored is left as it is. */
  async register(orgId: string, token: string, name: string, opts: RegisterOptions = {}): Promise<ApiToken> {
    const hash = hashToken(token);
    const now = opts.now ?? new Date();
    const role = opts.role ?? DEFAULT_ROLE;
    const doc = await this.col.findOneAndUpdate(
      { hash },
      {
        $setOnInsert: {
          _id: randomUUID(),
          orgId,
          name,
          role,
          ...(opts.owner ? { owner: opts.owner } : {}),
          ...(opts.permissions ? { permissions: opts.permissions } : {}),
          ...(opts.uploadsFor ? { uploadsFor: opts.uploadsFor } : {}),
          hashPrefix: hash.slice(0, PREFIX_LENGTH),
          createdAt: now,
          expiresAt: opts.expiresAt ?? null,
          revokedAt: null,
        },
      },
      { upsert: true },
    );
    if (!doc) throw new Error('token upsert returned no document');
    return toToken(doc);
  }

  /** The active, unexpired token matching `token`, or null. */
  async authenticate(token: string, now = new Date()): Promise<ApiToken | null> {
    const hash = hashToken(token);
    const candidates = await this.col.find({ hashPrefix: hash.slice(0, PREFIX_LENGTH), revokedAt: null });
    const wanted = Buffer.from(hash, 'hex');
    let match: TokenDoc | null = null;
    for (const c of candidates) {
      if (timingSafeEqual(Buffer.from(c.hash, 'hex'), wanted)) match = c;
    }
    if (!match || (match.expiresAt && match.expiresAt <= now)) return null;
    return toToken(match);
  }

  async list(orgId: string): Promise<ApiToken[]> {
    const docs = await this.col.find({ orgId }, { sort: { createdAt: 1 } });
    return docs.map(toToken);
  }

  async listOwnedBy(personId: string): Promise<ApiToken[]> {
    const docs = await this.col.find({ 'owner.personId': personId }, { sort: { createdAt: 1 } });
    return docs.map(toToken);
  }

  async limitOwnedBy(personId: string, role: Role | null, now = new Date()): Promise<number> {
    const active = { 'owner.personId': personId, revokedAt: null };
    if (role === null) return (await this.col.updateMany(active, { $set: { revokedAt: now } })).modifiedCount;
    const above = ROLES.slice(ROLES.indexOf(role) + 1);
    if (above.length === 0) return 0;
    return (await this.col.updateMany({ ...active, role: { $in: above } }, { $set: { role } })).modifiedCount;
  }

  async findById(id: string): Promise<ApiToken | null> {
    const doc = await this.col.findOne({ _id: id });
    return doc ? toToken(doc) : null;
  }

  async countActive(orgId: string): Promise<number> {
    return this.col.countDocuments({ orgId, revokedAt: null });
  }

  /** Revokes a token by id; false when there is no such active token (in `scope.orgId`, when given). */
  async revoke(id: string, scope: { orgId?: string; now?: Date } = {}): Promise<boolean> {
    const filter = scope.orgId === undefined ? { _id: id, revokedAt: null } : { _id: id, orgId: scope.orgId, revokedAt: null };
    const res = await this.col.updateOne(filter, { $set: { revokedAt: scope.now ?? new Date() } });
    return res.modifiedCount === 1;
  }
}
