// Chooses the database: MongoDB when a URL is configured, else the embedded database (persisted
// under dataDir when given, in memory otherwise).
import type { Database } from './collection.js';
import { openEmbeddedDatabase } from './embedded/embedded-database.js';
import { openMongoDatabase } from './mongo-database.js';

export interface OpenDatabaseOptions {
  mongoUrl?: string;
  dataDir?: string;
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.mongoUrl) return openMongoDatabase(options.mongoUrl);
  return openEmbeddedDatabase(options.dataDir === undefined ? {} : { dataDir: options.dataDir });
}
