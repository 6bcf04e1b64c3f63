// Token administration: `npm run token -- create|list|revoke`.
// With the embedded database the service must be stopped first (one process owns the data
// directory); with MONGO_URL it works while the service runs.
import { parseArgs } from 'node:util';
import { embeddedDbDir, loadConfig } from '../shared/config.js';
import { openDatabase } from '../shared/database/open-database.js';
import { createStore } from '../shared/merge-queue/store/store.js';
import { ensureIndexes } from '../shared/database/ensure-indexes.js';
import { generateToken } from '../shared/accounts/token-repository.js';

const USAGE = `usage:
  npm run token -- create [--org <slug>] [--name <label>]   create a token and print it once
  npm run token -- list [--org <slug>]                       list tokens (never their values)
  npm run token -- revoke <token-id>                         revoke a token by id`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { org: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const [command, arg] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(command ? 0 : 2);
}

const config = loadConfig();
const db = await openDatabase(config.mongoUrl ? { mongoUrl: config.mongoUrl } : { dataDir: embeddedDbDir(config) });
const store = createStore(db);
await ensureIndexes(store);
let exitCode = 0;
try {
  const slug = values.org ?? config.orgSlug;
  switch (command) {
    case 'create': {
      const org = await store.orgs.ensure(slug);
      const token = generateToken();
      const saved = await store.tokens.register(org.id, token, values.name ?? 'created with npm run token');
      console.log(`token ${saved.id} for organisation "${slug}":\n${token}\n(shown only this once)`);
      break;
    }
    case 'list': {
      const org = await store.orgs.findBySlug(slug);
      const tokens = org ? await store.tokens.list(org.id) : [];
      if (tokens.length === 0) console.log(`no tokens for organisation "${slug}"`);
      for (const t of tokens) {
        console.log(`${t.id}  ${t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : 'active'}  created ${t.createdAt.toISOString()}  ${t.name}`);
      }
      break;
    }
    case 'revoke': {
      if (!arg) throw new Error('revoke needs a token id (see `npm run token -- list`)');
      if (await store.tokens.revoke(arg)) console.log(`token ${arg} revoked`);
      else {
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
