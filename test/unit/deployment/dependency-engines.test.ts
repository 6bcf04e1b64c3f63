// Every package the service installs in production supports the oldest Node release package.json
// states (commander 15, for one, needs Node 22.12): read from the lock file, as npm ci installs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import semver from 'semver';

const root = path.resolve(import.meta.dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
};

describe('supported Node releases', () => {
  it('package.json states them, and no production dependency needs a newer Node than the oldest', () => {
    const oldest = semver.minVersion(manifest.engines.node);
    expect(oldest?.version, manifest.engines.node).to.equal('20.19.0');
    const refusing = Object.entries(lock.packages)
      .filter(([name, info]) => name !== '' && !info.dev && !Array.isArray(info.engines) && info.engines?.node && semver.validRange(info.engines.node))
      .filter(([, info]) => !semver.satisfies(oldest!, (info.engines as { node: string }).node))
      .map(([name, info]) => `${name}@${info.version} (node ${(info.engines as { node: string }).node})`);
    expect(refusing).to.deep.equal([]);
  });
});
