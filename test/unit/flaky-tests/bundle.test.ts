// Bundle reader tests. Bundles are tar archives compressed with zstd (notes §2.2). Only a zstd
// *decoder* (fzstd) is installed, so most bundles here are compressed by zstdRawFrame() below: a
// zstd frame built by hand from Raw blocks (RFC 8878 §3.1.1.2, Block_Type 0 = bytes stored as-is).
// That is valid zstd any decoder accepts — it just does not shrink anything. One fixture
// (REAL_BUNDLE_ZST) was compressed by the reference `zstd` CLI at level 15, like the hosted CLI
// does, to cover real compressed blocks and the frame checksum.
import { expect } from 'chai';
import { pack } from 'tar-stream';
import { testId } from '../../../shared/flaky-tests/domain/test-identity.js';
import {
  BundleError,
  decompressZstd,
  openBundle,
  safeEntryPath,
  ZstdFrameWalker,
  type BundleFile,
  type BundleLimits,
} from '../../../shared/flaky-tests/formats/bundle/index.js';
import { collectJUnit, tallyRuns } from '../../../shared/flaky-tests/formats/junit/index.js';

/**
 * One zstd frame of Raw blocks:
 *   Magic_Number 0xFD2FB528 (little endian)
 *   Frame_Header_Descriptor: bit 2 = checksum flag; no single segment, no dictionary, no size
 *   Window_Descriptor: exponent e → window 2^(10+e); default e=7 → 128 KiB (the block maximum)
 *   Blocks: 3-byte little-endian header = Last_Block | Block_Type << 1 | Block_Size << 3,
 *           followed by Block_Size raw bytes
 *   Content_Checksum (4 bytes) when flagged; fzstd does not verify it, so zeros are fine here.
 */
function zstdRawFrame(data: Uint8Array, options: { blockSize?: number; checksum?: boolean; windowExponent?: number } = {}): Buffer {
  const blockSize = options.blockSize ?? 128 * 1024;
  const parts: Buffer[] = [];
  const header = Buffer.alloc(6);
  header.writeUInt32LE(0xfd2fb528, 0);
  header[4] = options.checksum ? 0x04 : 0x00;
  header[5] = (options.windowExponent ?? 7) << 3;
  parts.push(header);
  let offset = 0;
  do {
    const size = Math.min(blockSize, data.length - offset);
    const last = offset + size >= data.length ? 1 : 0;
    const bh = (size << 3) | (0 << 1) | last;
    parts.push(Buffer.from([bh & 0xff, (bh >> 8) & 0xff, (bh >> 16) & 0xff]), Buffer.from(data.subarray(offset, offset + size)));
    offset += size;
  } while (offset < data.length);
  if (options.checksum) parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

/** A frame of `count` RLE blocks (Block_Type 1) each expanding one byte to `size` bytes. */
function zstdRleFrame(count: number, size = 128 * 1024): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3]);
  const blocks: Buffer[] = [header];
  for (let i = 0; i < count; i++) {
    const bh = (size << 3) | (1 << 1) | (i === count - 1 ? 1 : 0);
    blocks.push(Buffer.from([bh & 0xff, (bh >> 8) & 0xff, (bh >> 16) & 0xff, 0x41]));
  }
  return Buffer.concat(blocks);
}

/** Skippable frame (magic 0x184D2A5?): metadata decoders must ignore. */
function skippableFrame(payload: Uint8Array): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32LE(0x184d2a53, 0);
  h.writeUInt32LE(payload.length, 4);
  return Buffer.concat([h, Buffer.from(payload)]);
}

interface TarEntrySpec {
  name: string;
  body?: string | Buffer;
  type?: 'file' | 'directory';
}

async function tarOf(entries: TarEntrySpec[]): Promise<Buffer> {
  const p = pack();
  for (const e of entries) {
    if (e.type === 'directory') p.entry({ name: e.name, type: 'directory' });
    else p.entry({ name: e.name }, e.body ?? '');
  }
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function* chunked(data: Uint8Array, sizes: number[] = [7, 1, 300, 4096, 65536]): AsyncGenerator<Uint8Array> {
  let i = 0;
  let k = 0;
  while (i < data.length) {
    const size = sizes[k++ % sizes.length]!;
    yield data.subarray(i, i + size);
    i += size;
  }
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const b of stream) parts.push(b);
  return Buffer.concat(parts).toString('utf8');
}

async function bundleError(run: () => Promise<unknown>): Promise<BundleError> {
  try {
    await run();
  } catch (err) {
    expect(err).to.be.instanceOf(BundleError);
    return err as BundleError;
  }
  throw new Error('expected a BundleError');
}

/** Opens a bundle and drains every file, returning the error if one is thrown. */
async function openAndDrain(bytes: Uint8Array, limits?: BundleLimits): Promise<void> {
  const { files } = await openBundle(chunked(bytes), limits);
  for await (const f of files) await readAll(f.stream);
}

const META = {
  version: '1',
  cli_version: 'cargo=0.9.0 git=abc rustc=1.80',
  org: 'acme',
  repo: { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, repo_head_sha: 'a'.repeat(40), repo_head_branch: 'refs/heads/main' },
  bundle_upload_id: '6f1c0d3e-0000-4000-8000-000000000001',
  file_sets: [
    {
      file_set_type: 'Junit',
      glob: 'reports/**/*.xml',
      files: [
        { original_path: '/ci/src/reports/a.xml', original_path_rel: 'reports/a.xml', path: 'junit/0', owners: [], team: null },
        { original_path: '/ci/src/reports/b.xml', path: 'junit/1', owners: [], team: null },
      ],
    },
  ],
  envs: { GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/pull/7/merge' },
  variant: 'linux',
  upload_time_epoch: 1733796000,
};

const JUNIT_A = '<testsuite name="S"><testcase name="a"/><testcase name="b"><failure message="x"/></testcase></testsuite>';
const JUNIT_B = '<testsuites><testsuite name="T"><testcase name="c"><flakyFailure/></testcase></testsuite></testsuites>';

async function sampleTar(extra: TarEntrySpec[] = []): Promise<Buffer> {
  return tarOf([
    { name: 'meta.json', body: JSON.stringify(META) },
    { name: 'junit/0', body: JUNIT_A },
    { name: 'junit', type: 'directory' },
    { name: 'junit/1', body: JUNIT_B },
    { name: 'internal.bin', body: Buffer.from([8, 1, 18, 0]) },
    { name: 'CODEOWNERS', body: '* @acme/all\n' },
    { name: 'bazel_bep.json', body: '{}' },
    ...extra,
  ]);
}

// Compressed by `zstd -15` from a GNU tar of meta.json + junit/0 (the googletest junit0_fail sample).
const REAL_BUNDLE_ZST = [
  'KLUv/WQAJ+UXADZndiYQkdz85C8zAVphPAmCNClsB+4a3bY9oePkyW9K8QsgUVXVgAhvAWkAawBuABhL2hIDm09iqZiH1077PjEc',
  '086sKfZ4p73oXMi2nJJ675W2pvUz4CVivW9EIjelHl5N4qh5UX4VjG8h++y0ckKnnVmO5uekTWuU32vTuNZA0uR5IMhJAZAUPc0D',
  'RY9roojiGjm9QsLfWFVkCS9I5z6U1WGn7UzjK45vh5eFUExM6xe/QBSx4IxZrTpaslqci6ABaTKRnuohhs0nIWOOO35putNinmRq',
  'ubT1LDwgIFECogn0uJ2WMV5Z3BjHcZzJs3/MThtp3UfdmZNWHevflwUxdtoO1CWhNZ/stk7yLNUilmFAIFECJBe55tGxGVXCCCln',
  'ngqrsrJawpdMuV4sxJL87pyjNAa/K/2IB4iGSsJBhSDBUGlY8Ixsr8/vldWZOL0pgGXGqyPGKqfFuN85FTttbFpBNmIZkhljY5yv',
  '08E8ZwHNo8AdZ9uzwsXe3Dk+q79jhs231MfqTdsu1XZAwtj2Pcl7jhXpxKgsZKUfofPLMmjhy9Dao2ArMR6wdJNz0+Mq7olATySC',
  'HLRUhvH745zE6aR0KaujhR1aTWuEfGnbYCV4FBisQEShIrEBfqgBKVNMkZEZESFNitVAhoy5qjqi+RhPRcaRoCageCSI8ikjBcbM',
  'Ab/NWsNfjAB7IU2LykeQnyvqxN2RWoZGuru8nB1RwlETPpXXNzHKlbsWIjiLqDTgCsDOIxfid/gV9xhdEtsQW0opxF3whtUQofs6',
  '+QMRVSwuhlbC4GwwOUhYC4Xntymh1pcIj0mqzwMvBsxv4VXndrPCmt3e1soYwG8QwUGFIh1pZ4rrjni/eVjVMcv3E7x4GUSYJxEs',
  'XMwSqJkf9pakHBtG4gwRKOsDIRYYJIsHXKG+oieWiXWhhBZCY+fCI0w1SJwLYOhJZG7Q+2Pr6TwJhJRG1pfQRrFrAbK4nZDm76fl',
  'BWPV7FEveZ4PHS/n/PfeDsQzJMv7HBcKYCx/5g==',
].join('');

describe('flaky/bundle', () => {
  describe('zstd', () => {
    it('round-trips hand-built raw-block frames, with checksum, across frames and skippable frames', async () => {
      const data = Buffer.from('hello zstd '.repeat(50_000));
      const frames = Buffer.concat([
        zstdRawFrame(data.subarray(0, 200_000), { blockSize: 10_000, checksum: true }),
        skippableFrame(Buffer.from('ignore me')),
        zstdRawFrame(data.subarray(200_000)),
        zstdRawFrame(new Uint8Array(0)),
      ]);
      const parts: Buffer[] = [];
      for await (const b of decompressZstd(chunked(frames))) parts.push(b);
      expect(Buffer.concat(parts).equals(data)).to.equal(true);
    });

    it('yields output block by block (never a whole frame at once)', async () => {
      const frame = zstdRleFrame(40); // 40 × 128 KiB = 5 MiB from 166 bytes
      let max = 0;
      let total = 0;
      for await (const b of decompressZstd(chunked(frame, [frame.length]))) {
        max = Math.max(max, b.length);
        total += b.length;
      }
      expect(total).to.equal(40 * 128 * 1024);
      expect(max).to.be.at.most(128 * 1024);
    });

    it('gives the event loop a turn between blocks, so a small bomb never holds a process', async () => {
      // One 166-byte input chunk expanding to 5 MiB: without turns, no timer or I/O callback (an
      // HTTP request in the all-in-one process) would run until the whole frame is decoded.
      const frame = zstdRleFrame(40);
      let turns = 0;
      let stop = false;
      const tick = (): void => {
        if (stop) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      let blocks = 0;
      for await (const b of decompressZstd(chunked(frame, [frame.length]))) if (b.length > 0) blocks++;
      stop = true;
      expect(blocks).to.equal(40);
      expect(turns).to.be.at.least(blocks - 1);
    });

    it('stops a decompression bomb at the output limit', async () => {
      const bomb = zstdRleFrame(50_000); // would be ~6.5 GB
      const err = await bundleError(async () => {
        for await (const _ of decompressZstd(chunked(bomb), { maxUncompressedBytes: 10 * 1024 * 1024 })) void _;
      });
      expect(err.code).to.equal('too-large');
    });

    it('rejects frames declaring windows over the limit before decoding (no huge allocation)', async () => {
      const huge = zstdRawFrame(Buffer.from('x'), { windowExponent: 21 }); // 2 GiB window
      expect(
        (
          await bundleError(async () => {
            for await (const _ of decompressZstd(chunked(huge))) void _;
          })
        ).code,
      ).to.equal('zstd-window-too-large');
      // Single-segment frame whose content size (= window) is 1 GiB.
      const ss = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0x40, 0x01, 0x00, 0x00]);
      expect(
        (
          await bundleError(async () => {
            for await (const _ of decompressZstd(chunked(ss))) void _;
          })
        ).code,
      ).to.equal('zstd-window-too-large');
    });

    it('rejects dictionaries, bad magic, reserved bits and truncation with precise codes', async () => {
      const walker = (bytes: number[]): BundleError => {
        try {
          const w = new ZstdFrameWalker(1 << 26);
          w.walk(Uint8Array.from(bytes));
          w.finish();
        } catch (err) {
          return err as BundleError;
        }
        throw new Error('expected an error');
      };
      expect(walker([0x28, 0xb5, 0x2f, 0xfd, 0x01, 0x38, 0x05]).code).to.equal('zstd-dictionary');
      expect(walker([0x1f, 0x8b, 0x08, 0x00]).code).to.equal('not-zstd');
      expect(walker([0x28, 0xb5, 0x2f, 0xfd, 0x08]).code).to.equal('corrupt-zstd');
      expect(walker([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38, 0x07, 0, 0]).code).to.equal('corrupt-zstd'); // reserved block type
      expect(walker([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38, 0x29, 0, 0, 1]).code).to.equal('corrupt-zstd'); // ends mid-block
      expect(walker([]).code).to.equal('not-zstd');
    });

    it('decodes real level-15 output of the zstd CLI', async () => {
      const parts: Buffer[] = [];
      for await (const b of decompressZstd(chunked(Buffer.from(REAL_BUNDLE_ZST, 'base64')))) parts.push(b);
      expect(Buffer.concat(parts)).to.have.length(10240);
    });
  });

  describe('openBundle', () => {
    it('reads meta.json and streams every entry with kind, size and original path', async () => {
      const compressed = zstdRawFrame(await sampleTar(), { blockSize: 1000 });
      const { meta, files } = await openBundle(chunked(compressed));
      expect(meta.org).to.equal('acme');
      expect(meta.variant).to.equal('linux');
      expect(meta.repo?.repo).to.deep.equal({ host: 'github.com', owner: 'acme', name: 'widgets' });
      expect(meta.envs?.GITHUB_REF).to.equal('refs/pull/7/merge');

      const seen: Omit<BundleFile, 'stream'>[] = [];
      const junit: Record<string, ReturnType<typeof tallyRuns>> = {};
      for await (const file of files) {
        const { stream, ...rest } = file;
        seen.push(rest);
        if (file.kind === 'junit') junit[file.path] = tallyRuns((await collectJUnit(stream)).runs);
        // Other entries are deliberately left unread: the reader must skip them itself.
      }
      expect(seen).to.deep.equal([
        { path: 'junit/0', kind: 'junit', size: JUNIT_A.length, originalPath: 'reports/a.xml' },
        { path: 'junit/1', kind: 'junit', size: JUNIT_B.length, originalPath: '/ci/src/reports/b.xml' },
        { path: 'internal.bin', kind: 'internal-bin', size: 4, originalPath: null },
        { path: 'CODEOWNERS', kind: 'codeowners', size: 12, originalPath: null },
        { path: 'bazel_bep.json', kind: 'bazel-bep', size: 2, originalPath: null },
      ]);
      expect(junit['junit/0']).to.include({ runs: 2, passed: 1, failed: 1 });
      expect(junit['junit/1']).to.include({ runs: 2, flakyTests: 1 });
    });

    it('reads a bundle compressed by the real zstd CLI and reproduces the variant id of notes §1.1', async () => {
      const { meta, files } = await openBundle(chunked(Buffer.from(REAL_BUNDLE_ZST, 'base64')));
      expect(meta.variant).to.equal('linux');
      const collected: string[] = [];
      for await (const file of files) {
        expect([file.path, file.kind, file.originalPath]).to.deep.equal(['junit/0', 'junit', 'out/hello.xml']);
        const { runs } = await collectJUnit(file.stream);
        const r = runs[0]!;
        collected.push(
          testId({
            orgUrlSlug: meta.org ?? '',
            repoFullName: 'github.com/acme/widgets',
            file: r.file,
            classname: r.classname,
            parent: r.parent,
            name: r.name,
            variant: meta.variant ?? '',
          }),
        );
      }
      expect(collected).to.deep.equal(['11dd6acd-3c9a-5031-9cf8-439075a20c36']);
    });

    it('handles a tar split over several frames with a skippable frame between', async () => {
      const tar = await sampleTar();
      const compressed = Buffer.concat([
        zstdRawFrame(tar.subarray(0, 1500)),
        skippableFrame(Buffer.alloc(3)),
        zstdRawFrame(tar.subarray(1500), { checksum: true }),
      ]);
      const { files } = await openBundle(chunked(compressed));
      const paths: string[] = [];
      for await (const f of files) paths.push(f.path);
      expect(paths).to.have.length(5);
    });

    it('lets the caller stop early without hanging', async () => {
      const { files } = await openBundle(chunked(zstdRawFrame(await sampleTar())));
      for await (const f of files) {
        expect(await readAll(f.stream)).to.equal(JUNIT_A);
        break;
      }
    });

    it('rejects input that is not zstd (plain tar, gzip)', async () => {
      expect((await bundleError(() => openBundle(chunked(Buffer.from('plain text'))))).code).to.equal('not-zstd');
      expect((await bundleError(() => openBundle(chunked(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]))))).code).to.equal('not-zstd');
      expect((await bundleError(() => openBundle(chunked(new Uint8Array(0))))).code).to.equal('not-zstd');
    });

    it('rejects truncated zstd', async () => {
      const compressed = zstdRawFrame(await sampleTar(), { blockSize: 1000 });
      const err = await bundleError(() => openAndDrain(compressed.subarray(0, compressed.length - 10)));
      expect(err.code).to.equal('corrupt-zstd');
    });

    it('rejects a corrupt or truncated tar inside valid zstd', async () => {
      expect((await bundleError(() => openAndDrain(zstdRawFrame(Buffer.alloc(2048, 0x41))))).code).to.equal('corrupt-tar');
      const tar = await sampleTar();
      expect((await bundleError(() => openAndDrain(zstdRawFrame(tar.subarray(0, 1200))))).code).to.equal('corrupt-tar');
    });

    it('requires meta.json as the first entry and valid JSON object content', async () => {
      const noMeta = await tarOf([
        { name: 'junit/0', body: JUNIT_A },
        { name: 'meta.json', body: '{}' },
      ]);
      expect((await bundleError(() => openBundle(chunked(zstdRawFrame(noMeta))))).code).to.equal('missing-meta');
      expect((await bundleError(() => openBundle(chunked(zstdRawFrame(Buffer.alloc(1024)))))).code).to.equal('missing-meta');
      for (const body of ['{not json', '[1,2]', '{"file_sets": {}}', '{"variant": 3}', '{"file_sets": [{"files": [1]}]}']) {
        const tar = await tarOf([{ name: 'meta.json', body }]);
        expect((await bundleError(() => openBundle(chunked(zstdRawFrame(tar))))).code, body).to.equal('invalid-meta');
      }
    });

    it('rejects unsafe entry names', async () => {
      const tar = await sampleTar([{ name: '../../etc/passwd', body: 'x' }]);
      expect((await bundleError(() => openAndDrain(zstdRawFrame(tar)))).code).to.equal('unsafe-path');
      expect(() => safeEntryPath('/abs')).to.throw(BundleError);
      expect(() => safeEntryPath('C:/x')).to.throw(BundleError);
      expect(safeEntryPath('./junit/0')).to.equal('junit/0');
    });

    it('enforces size and count limits', async () => {
      const compressed = zstdRawFrame(await sampleTar());
      expect((await bundleError(() => openAndDrain(compressed, { maxCompressedBytes: 1000 }))).code).to.equal('too-large');
      expect((await bundleError(() => openAndDrain(compressed, { maxUncompressedBytes: 2000 }))).code).to.equal('too-large');
      expect((await bundleError(() => openAndDrain(compressed, { maxEntries: 3 }))).code).to.equal('too-many-entries');
      expect((await bundleError(() => openAndDrain(compressed, { maxEntryBytes: 50 }))).code).to.equal('entry-too-large');
      expect((await bundleError(() => openAndDrain(compressed, { maxMetaBytes: 100 }))).code).to.equal('invalid-meta');
    });

    it('streams a large report out of a bundle', async () => {
      const cases = Array.from(
        { length: 20_000 },
        (_, i) => `<testcase classname="C" name="t${i}" time="0.001"><system-out>${'o'.repeat(200)}</system-out></testcase>`,
      ).join('\n');
      const xml = `<testsuite name="big">${cases}</testsuite>`;
      const tar = await tarOf([
        { name: 'meta.json', body: '{}' },
        { name: 'junit/0', body: xml },
      ]);
      const { files } = await openBundle(chunked(zstdRawFrame(tar), [65536]));
      let runs = 0;
      for await (const f of files) runs += (await collectJUnit(f.stream)).runs.length;
      expect(runs).to.equal(20_000);
    });
  });
});
