// The import rules of .dependency-cruiser.cjs catch what they are written for: each is run over a
// small tree that breaks it once (and a tree that keeps every rule), so a rule that silently
// stopped matching (a renamed folder, a wrong pattern) fails here, not in review.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';

const config = createRequire(import.meta.url)('../../../.dependency-cruiser.cjs') as IConfiguration;

/** Cruises a tree of files (path → content) with the project's rules; answers the broken rules with their modules. */
async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'openmq-rules-'));
  const cwd = process.cwd();
  try {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.join(root, path.dirname(file)), { recursive: true });
      await writeFile(path.join(root, file), text);
    }
    process.chdir(root);
    const dirs = [...new Set(Object.keys(files).map((f) => f.split('/')[0]!))];
    const { output } = await cruise(dirs, {
      ruleSet: { forbidden: config.forbidden ?? [] },
      validate: true,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
    });
    return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
    await rm(root, { recursive: true, force: true });
  }
}

describe('import rules', function () {
  this.timeout(30_000);

  it('pass a tree that keeps them', async () => {
    expect(
      await violationsOf({
        'shared/platform/errors.ts': 'export const e = 1;\n',
        'shared/merge-queue/domain/model.ts': "import { e } from '../../platform/errors.ts';\nexport const m = e;\n",
        'shared/merge-queue/services/queue-service.ts': "import { m } from '../domain/model.ts';\nexport const s = m;\n",
        'api/routes.ts': "import { s } from '../shared/merge-queue/services/queue-service.ts';\nexport const r = s;\n",
      }),
    ).to.deep.equal([]);
  });

  it('refuse each layer violation', async () => {
    expect(
      await violationsOf({
        'shared/platform/events/dispatcher.ts': "import type { Q } from '../../merge-queue/store/store.ts';\nexport type D = Q;\n",
        'shared/merge-queue/store/store.ts': "import { x } from '../services/service.ts';\nexport type Q = typeof x;\n",
        'shared/merge-queue/services/service.ts': "import { db } from '../../platform/database/collection.ts';\nexport const x = db;\n",
        'shared/platform/database/collection.ts': 'export const db = 1;\n',
        'shared/flaky-tests/domain/model.ts': "import { f } from '../formats/junit.ts';\nexport const m = f;\n",
        'shared/flaky-tests/formats/junit.ts': "import { x } from '../../merge-queue/services/service.ts';\nexport const f = x;\n",
        'web/src/page.ts': "import type { Q } from '../../shared/merge-queue/store/store.ts';\nexport type P = Q;\n",
        'scripts/tool.ts': "import { h } from '../test/helper.ts';\nexport const t = h;\n",
        'test/helper.ts': 'export const h = 1;\n',
      }),
    ).to.deep.equal([
      'clients-use-the-api: web/src/page.ts → shared/merge-queue/store/store.ts',
      'domain-is-pure: shared/flaky-tests/domain/model.ts → shared/flaky-tests/formats/junit.ts',
      'nothing-imports-test: scripts/tool.ts → test/helper.ts',
      'platform-knows-no-product: shared/platform/events/dispatcher.ts → shared/merge-queue/store/store.ts',
      'products-meet-through-ports: shared/flaky-tests/formats/junit.ts → shared/merge-queue/services/service.ts',
      'services-over-repositories: shared/merge-queue/services/service.ts → shared/platform/database/collection.ts',
      'store-below-services: shared/merge-queue/store/store.ts → shared/merge-queue/services/service.ts',
    ]);
  });

  it('refuse an import cycle', async () => {
    const found = await violationsOf({
      'shared/flaky-tests/store/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'shared/flaky-tests/store/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    });
    expect(found).to.deep.equal(['no-circular: shared/flaky-tests/store/a.ts → shared/flaky-tests/store/b.ts']);
  });
});
