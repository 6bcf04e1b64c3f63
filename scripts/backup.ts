// `npm run backup -- <dir>` and `npm run restore -- <dir>`: a backup of the embedded store (and the
// flaky-test upload files beside it) in DATA_DIR, taken while the service runs, and its restore
// into a fresh DATA_DIR. With MONGO_URL set the data is MongoDB's: use mongodump (docs/operations.md).
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, embeddedDbDir, loadConfig } from '../shared/composition/config.js';
import { backupEmbeddedStore, restoreEmbeddedStore } from '../shared/platform/database/embedded/embedded-backup.js';

const UPLOADS = 'flaky-uploads';
const [command, target] = process.argv.slice(2);

function fail(message: string): never {
  console.error(`${command ?? 'backup'}: ${message}`);
  process.exit(2);
}

if ((command !== 'backup' && command !== 'restore') || !target) fail('usage: backup.ts backup <new directory> | restore <backup directory>');
let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}
if (config.mongoUrl) fail('MONGO_URL is set: the data is in MongoDB — back it up with mongodump and restore it with mongorestore (docs/operations.md#backups)');
const dir = path.resolve(target);

try {
  if (command === 'backup') {
    const manifest = backupEmbeddedStore(embeddedDbDir(config), path.join(dir, 'db'));
    const uploads = path.join(config.dataDir, UPLOADS);
    if (existsSync(uploads)) cpSync(uploads, path.join(dir, UPLOADS), { recursive: true });
    console.log(`backed up ${manifest.collections} collections of ${config.dataDir} to ${dir}`);
  } else {
    const manifest = restoreEmbeddedStore(path.join(dir, 'db'), embeddedDbDir(config));
    const uploads = path.join(dir, UPLOADS);
    if (existsSync(uploads)) cpSync(uploads, path.join(config.dataDir, UPLOADS), { recursive: true });
    console.log(`restored the backup of ${manifest.source} (${manifest.createdAt}) into ${config.dataDir}; start the service with npm start`);
  }
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
