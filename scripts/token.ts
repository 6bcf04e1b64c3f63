// Token administration: `npm run token -- create|list|revoke`.
// With the embedded database the service must be stopped first (one process owns the data
// directory); with MONGO_URL it works while the service runs.
import { parseArgs } from 'node:util';
import { embeddedDbDir, loadConfig } from '../shared/composition/config.js';
import { openDatabase } from '../shared/platform/database/open-database.js';
import { ensureIndexes } from '../shared/platform/database/ensure-indexes.js';
import { DEFAULT_ROLE, isRole, ROLES } from '../shared/platform/accounts/roles.js';
import type { OperatorActor } from '../shared/platform/accounts/actor.js';
import { createAccountsModule } from '../shared/platform/accounts/accounts-module.js';

const USAGE = `usage:
  npm run token -- create [--org <slug>] [--name <label>] [--role admin|write|read]
                                                             create a token and print it once (default role admin)
  npm run token -- list [--org <slug>]                       list tokens (never their values)
  npm run token -- revoke <token-id>                         revoke a token by id`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { org: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const [command, arg] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(command ? 0 : 2);
}

const role = values.role ?? DEFAULT_ROLE;
if (!isRole(role)) {
  console.error(`--role must be one of ${ROLES.join(', ')}\n${USAGE}`);
  process.exit(2);
}
/** Changes made here are recorded in the audit trail under this actor (it holds no token). */
const operator = (orgId: string): OperatorActor => ({ kind: 'operator', orgId, name: 'npm run token' });

const config = loadConfig();
const db = await openDatabase(config.mongoUrl ? { mongoUrl: config.mongoUrl } : { dataDir: embeddedDbDir(config) });
const { store, tokens } = createAccountsModule(db, { personalTokenDays: config.personalTokenDays });
await ensureIndexes(store);
let exitCode = 0;
try {
  const slug = values.org ?? config.orgSlug;
  switch (command) {
    case 'create': {
      const org = await store.orgs.ensure(slug);
      const { token: saved, value } = await tokens.create(operator(org.id), { name: values.name ?? 'created with npm run token', role });
      console.log(`token ${saved.id} for organisation "${slug}", role ${saved.role}:\n${value}\n(shown only this once)`);
      break;
    }
    case 'list': {
      const org = await store.orgs.findBySlug(slug);
      const listed = org ? await tokens.list(operator(org.id)) : [];
      if (listed.length === 0) console.log(`no tokens for organisation "${slug}"`);
      for (const t of listed) {
        console.log(`${t.id}  ${t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : 'active'}  ${t.role}  created ${t.createdAt.toISOString()}  ${t.name}`);
      }
      break;
    }
    case 'revoke': {
      if (!arg) throw new Error('revoke needs a token id (see `npm run token -- list`)');
      // The operator names a token by id alone: it acts in that token's organisation.
      const token = await store.tokens.findById(arg);
      if (token && token.revokedAt === null) {
        await tokens.revoke(operator(token.orgId), arg);
        console.log(`token ${arg} revoked`);
      } else {
        console.error(`no active token with id ${arg}`);
        exitCode = 1;
      }
      break;
    }
    default:
      console.error(`unknown command "${command}"\n${USAGE}`);
      exitCode = 2;
  }
} finally {
  await db.close();
}
process.exit(exitCode);
