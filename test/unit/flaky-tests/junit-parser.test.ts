import { expect } from 'chai';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import {
  collectJUnit,
  collectJUnitString,
  hasJUnitErrors,
  openReport,
  parseDurationSeconds,
  parseJUnit,
  parseJUnitTimestamp,
  ReportTooLargeError,
  tallyRuns,
  type ByteSource,
} from '../../../shared/flaky-tests/formats/junit/index.js';

async function* chunksOf(data: Uint8Array | string, size: number): AsyncGenerator<Uint8Array | string> {
  for (let i = 0; i < data.length; i += size) {
    yield typeof data === 'string' ? data.slice(i, i + size) : data.subarray(i, i + size);
  }
}

function codes(issues: { code: string }[]): string[] {
  return issues.map((i) => i.code);
}

const SIMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="s" timestamp="2024-01-02T03:04:05Z">
    <testcase classname="C" name="a" time="0.5"/>
    <testcase classname="C" name="b" time="1"><failure message="boom" type="AssertionError">stack &amp; <![CDATA[<raw>]]> tail</failure></testcase>
    <testcase classname="C" name="c"><skipped message="later"/></testcase>
  </testsuite>
</testsuites>`;

describe('flaky/junit parser', () => {
  describe('documents that are not JUnit', () => {
    it('reports plain text as not-xml without throwing', async () => {
      const { runs, issues } = await collectJUnitString('hello world, this is a log file');
      expect(runs).to.deep.equal([]);
      expect(codes(issues)).to.deep.equal(['not-xml']);
      expect(issues[0]!.level).to.equal('error');
      expect(hasJUnitErrors(issues)).to.equal(true);
    });

    it('reports JSON, empty input and binary junk as not-xml', async () => {
      for (const input of ['{"tests": []}', '', '   \n', Buffer.from([0, 1, 2, 255, 254, 10])]) {
        const { runs, issues } = await collectJUnitString(input);
        expect(runs, String(input)).to.deep.equal([]);
        expect(codes(issues), String(input)).to.deep.equal(['not-xml']);
      }
    });

    it('refuses a flood of control bytes in bounded time, at the start or after the root', async () => {
      const nul = Buffer.alloc(1024 * 1024);
      const started = Date.now();
      const atStart = await collectJUnitString(nul);
      expect(codes(atStart.issues)).to.deep.equal(['not-xml']);
      expect(atStart.issues[0]!.message).to.contain('U+0000');
      const afterRoot = await collectJUnitString(Buffer.concat([Buffer.from('<testsuites><testsuite name="s">'), nul]));
      expect(afterRoot.issues.filter((i) => i.level === 'error').map((i) => i.code)).to.include('malformed-xml');
      expect(Date.now() - started).to.be.lessThan(1000);
    });

    it('rejects XML whose root is not testsuites/testsuite', async () => {
      const { runs, issues } = await collectJUnitString('<!DOCTYPE html><html><body><testsuite name="x"><testcase name="t"/></testsuite></body></html>');
      expect(runs).to.deep.equal([]);
      expect(codes(issues)).to.deep.equal(['not-junit']);
      expect(issues[0]!.message).to.contain('<html>');
    });

    it('keeps complete testcases of a truncated document and reports the truncation', async () => {
      const cut = SIMPLE.slice(0, SIMPLE.indexOf('<skipped') + 4);
      const { runs, issues } = await collectJUnitString(cut);
      expect(runs.map((r) => r.name)).to.deep.equal(['a', 'b']);
      expect(codes(issues)).to.deep.equal(['truncated-document']);
      expect(issues[0]!.message).to.contain('unfinished testcase was dropped');
    });

    it('continues after well-formedness errors, reporting each distinct one once', async () => {
      const xml = '<testsuite name="s"><testcase name="a" x="1<2"/><testcase name="b"><failure>&nbsp; &nbsp;</failure></testcase></testsuite>';
      const { runs, issues } = await collectJUnitString(xml);
      expect(runs.map((r) => [r.name, r.outcome])).to.deep.equal([
        ['a', 'passed'],
        ['b', 'failed'],
      ]);
      expect(issues.every((i) => i.code === 'malformed-xml' && i.level === 'warning')).to.equal(true);
      expect(issues.map((i) => i.message)).to.deep.equal(['disallowed character.', 'undefined entity.']);
    });
  });

  describe('document shapes (notes §2.3)', () => {
    it('parses a <testsuites> report: outcomes, texts, entities, CDATA, durations, timestamps', async () => {
      const { runs, issues } = await collectJUnitString(SIMPLE);
      expect(issues).to.deep.equal([]);
      expect(runs.map((r) => [r.name, r.outcome, r.durationMs])).to.deep.equal([
        ['a', 'passed', 500],
        ['b', 'failed', 1000],
        ['c', 'skipped', null],
      ]);
      const b = runs[1]!;
      expect(b.failureKind).to.equal('failure');
      expect(b.detail).to.deep.include({ element: 'failure', message: 'boom', type: 'AssertionError', text: 'stack & <raw> tail' });
      expect(b.startedAt?.toISOString()).to.equal('2024-01-02T03:04:05.000Z');
      expect(runs[2]!.detail).to.deep.include({ element: 'skipped', message: 'later' });
      expect(b.parent).to.equal('s');
      expect(b.classname).to.equal('C');
    });

    it('accepts a bare <testsuite> root and several of them (with a warning)', async () => {
      const { runs, issues } = await collectJUnitString(
        '<testsuite name="one"><testcase name="a"/></testsuite>\n<testsuite name="two"><testcase name="b"/></testsuite>',
      );
      expect(runs.map((r) => [r.parent, r.name])).to.deep.equal([
        ['one', 'a'],
        ['two', 'b'],
      ]);
      expect(codes(issues)).to.deep.equal(['multiple-roots']);
      expect(issues[0]!.level).to.equal('warning');
    });

    it('flags more than one <testsuites> report as an error but still reads it', async () => {
      const { runs, issues } = await collectJUnitString(
        '<testsuites><testsuite name="a"><testcase name="x"/></testsuite></testsuites><testsuites><testsuite name="b"><testcase name="y"/></testsuite></testsuites>',
      );
      expect(runs).to.have.length(2);
      expect(codes(issues)).to.deep.equal(['multiple-reports']);
    });

    it('drops testcases outside a suite, like the CLI', async () => {
      const { runs, issues } = await collectJUnitString(
        '<testsuites><testcase name="orphan"/><testsuite name="s"><testcase name="ok"/></testsuite></testsuites>',
      );
      expect(runs.map((r) => r.name)).to.deep.equal(['ok']);
      expect(codes(issues)).to.deep.equal(['testcase-outside-suite']);
    });

    it('flattens nested suites into the outermost one and keeps the suite path', async () => {
      const xml = `<testsuites><testsuite name="outer" filepath="outer.rb">
        <testsuite name="mid" file="mid/"><testsuite name="inner"><testcase name="deep"/></testsuite></testsuite>
        <testcase name="top" classname="K"/></testsuite></testsuites>`;
      const { runs } = await collectJUnitString(xml);
      expect(runs.map((r) => [r.name, r.parent, r.suitePath, r.file, r.fileHint])).to.deep.equal([
        ['deep', 'outer', ['outer', 'mid', 'inner'], 'outer.rb', 'outer.rb'],
        ['top', 'outer', ['outer'], 'outer.rb', 'outer.rb'],
      ]);
    });

    it('resolves file as testcase file > testcase filepath > outer suite file > outer suite filepath', async () => {
      const xml = `<testsuites>
        <testsuite name="s1" file="suite.rb" filepath="suite-path.rb">
          <testcase name="a" file="case.rb" filepath="case-path.rb"/>
          <testcase name="b" filepath="case-path.rb"/>
          <testcase name="c"/>
        </testsuite>
        <testsuite name="s2" filepath="only-path.rb"><testcase name="d"/></testsuite>
        <testsuite name="s3"><testsuite name="inner" file="inner.rb"><testcase name="e"><failure file="f.cpp" line="9"/></testcase></testsuite></testsuite>
      </testsuites>`;
      const { runs } = await collectJUnitString(xml);
      expect(runs.map((r) => [r.name, r.file, r.fileHint, r.line])).to.deep.equal([
        ['a', 'case.rb', 'case.rb', null],
        ['b', 'case-path.rb', 'case-path.rb', null],
        ['c', 'suite.rb', 'suite.rb', null],
        ['d', 'only-path.rb', 'only-path.rb', null],
        // Identity ignores nested-suite files; the hint does not.
        ['e', null, 'inner.rb', 9],
      ]);
    });

    it('tolerates missing attributes everywhere', async () => {
      const { runs, issues } = await collectJUnitString('<testsuites><testsuite><testcase/><testcase><error/></testcase></testsuite></testsuites>');
      expect(runs.map((r) => [r.name, r.classname, r.parent, r.durationMs, r.startedAt, r.outcome, r.failureKind])).to.deep.equal([
        ['', null, '', null, null, 'passed', null],
        ['', null, '', null, null, 'failed', 'error'],
      ]);
      expect(codes(issues)).to.deep.equal(['missing-name']);
      expect(issues[0]!.message).to.contain('2 occurrences');
    });

    it('keeps the first status element only', async () => {
      const { runs } = await collectJUnitString('<testsuite><testcase name="t"><skipped/><failure message="x"/></testcase></testsuite>');
      expect(runs.map((r) => r.outcome)).to.deep.equal(['skipped']);
    });

    it('reads testcase properties (attribute or body values) and ignores suite properties', async () => {
      const xml = `<testsuite name="s"><properties><property name="java.home" value="/opt"/></properties>
        <testcase name="t"><properties><property name="k" value="1"/><property name="body">text value</property></properties></testcase></testsuite>`;
      const { runs } = await collectJUnitString(xml);
      expect(runs[0]!.properties).to.deep.equal({ k: '1', body: 'text value' });
    });

    it('gives a single failing testcase its suite output (Bazel test.xml), and only then', async () => {
      const single =
        '<testsuite name="//pkg:t"><testcase name="//pkg:t"><error message="exit 1"/></testcase><system-out>log here</system-out><system-err>err here</system-err></testsuite>';
      const one = (await collectJUnitString(single)).runs;
      expect(one.map((r) => [r.systemOut, r.systemErr])).to.deep.equal([['log here', 'err here']]);
      const two = '<testsuite name="s"><testcase name="a"><failure/></testcase><testcase name="b"/><system-out>shared</system-out></testsuite>';
      expect((await collectJUnitString(two)).runs.map((r) => r.systemOut)).to.deep.equal([null, null]);
      const passing = '<testsuite name="s"><testcase name="a"/><system-out>shared</system-out></testsuite>';
      expect((await collectJUnitString(passing)).runs.map((r) => r.systemOut)).to.deep.equal([null]);
    });

    it('keeps testcase-level system-out/err and properties apart per run', async () => {
      const xml = '<testsuite><testcase name="t"><system-out>out</system-out><system-err>err</system-err></testcase></testsuite>';
      const { runs } = await collectJUnitString(xml);
      expect([runs[0]!.systemOut, runs[0]!.systemErr]).to.deep.equal(['out', 'err']);
    });

    it('ignores namespace prefixes and unknown elements', async () => {
      const xml = '<j:testsuite xmlns:j="urn:x" name="s"><j:testcase name="t"><custom><failure/></custom></j:testcase></j:testsuite>';
      const { runs } = await collectJUnitString(xml);
      expect(runs.map((r) => [r.name, r.outcome])).to.deep.equal([['t', 'passed']]);
    });
  });

  describe('retries (notes §2.6)', () => {
    it('emits flakyFailure/flakyError attempts as failures followed by the final pass', async () => {
      const xml = `<testsuite name="S"><testcase name="t" classname="C" time="2">
        <flakyFailure message="first" type="AssertionError" time="0.5"><stackTrace>trace 1</stackTrace><system-out>o1</system-out></flakyFailure>
        <flakyError message="second"><stackTrace>trace 2</stackTrace></flakyError>
        <system-out>final out</system-out></testcase></testsuite>`;
      const { runs } = await collectJUnitString(xml);
      expect(
        runs.map((r) => [r.outcome, r.failureKind, r.rerunElement, r.attempt, r.attemptInTestcase, r.attemptsInTestcase, r.durationMs, r.systemOut]),
      ).to.deep.equal([
        ['failed', 'failure', 'flakyFailure', 0, 0, 3, 500, 'o1'],
        ['failed', 'error', 'flakyError', 1, 1, 3, null, null],
        ['passed', null, null, 2, 2, 3, 2000, 'final out'],
      ]);
      expect(runs[0]!.detail).to.deep.include({ element: 'flakyFailure', message: 'first', stackTrace: 'trace 1' });
      expect(tallyRuns(runs)).to.include({ testcases: 1, runs: 3, flakyTests: 1, failingTests: 0 });
    });

    it('orders rerunFailure attempts in document order (Surefire and Playwright layouts)', async () => {
      const surefire = '<testsuite><testcase name="t"><failure message="m0"/><rerunFailure message="m1"/><rerunFailure message="m2"/></testcase></testsuite>';
      const playwright = '<testsuite><testcase name="t"><rerunFailure message="m0"/><rerunFailure message="m1"/><failure message="m2"/></testcase></testsuite>';
      for (const xml of [surefire, playwright]) {
        const { runs } = await collectJUnitString(xml);
        expect(runs.map((r) => [r.outcome, r.detail?.message, r.attempt])).to.deep.equal([
          ['failed', 'm0', 0],
          ['failed', 'm1', 1],
          ['failed', 'm2', 2],
        ]);
        expect(tallyRuns(runs)).to.include({ runs: 3, flakyTests: 0, failingTests: 1 });
      }
    });

    it('numbers repeated testcases of one identity as consecutive attempts across both encodings', async () => {
      const xml = `<testsuite name="S">
        <testcase name="t" classname="C"><flakyFailure message="x"/></testcase>
        <testcase name="t" classname="Other"/>
        <testcase name="t" classname="C"><failure/></testcase>
        <testcase name="t" classname="C"/>
      </testsuite>`;
      const { runs } = await collectJUnitString(xml);
      expect(runs.map((r) => [r.classname, r.outcome, r.attempt, r.testcaseOccurrence])).to.deep.equal([
        ['C', 'failed', 0, 0],
        ['C', 'passed', 1, 0],
        ['Other', 'passed', 0, 0],
        ['C', 'failed', 2, 1],
        ['C', 'passed', 3, 2],
      ]);
    });

    it('caps rerun elements per testcase', async () => {
      const reruns = '<rerunFailure/>'.repeat(5);
      const { runs, issues } = await collectJUnitString(`<testsuite><testcase name="t"><failure/>${reruns}</testcase></testsuite>`, {
        maxRerunsPerTestcase: 2,
      });
      expect(runs).to.have.length(3);
      expect(codes(issues)).to.deep.equal(['too-many-reruns']);
    });

    it('stops numbering new identities past the tracking cap, with one warning', async () => {
      const xml = `<testsuite>${'<testcase name="a"/><testcase name="b"/><testcase name="c"/><testcase name="a"/><testcase name="c"/>'}</testsuite>`;
      const { runs, issues } = await collectJUnitString(xml, { maxTrackedIdentities: 2 });
      expect(runs.map((r) => [r.name, r.attempt])).to.deep.equal([
        ['a', 0],
        ['b', 0],
        ['c', 0],
        ['a', 1],
        ['c', 0],
      ]);
      expect(codes(issues)).to.deep.equal(['identity-tracking-full']);
    });
  });

  describe('encodings and chunking', () => {
    it('strips a UTF-8 BOM and decodes multi-byte characters split across chunks', async () => {
      const xml = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('<?xml version="1.0"?><testsuite name="ünï"><testcase name="日本語 ✓ 😀"/></testsuite>'),
      ]);
      for (const size of [1, 2, 3, 7, 1000]) {
        const { runs, issues } = await collectJUnit(chunksOf(xml, size));
        expect(issues, `chunk ${size}`).to.deep.equal([]);
        expect(
          runs.map((r) => [r.parent, r.name]),
          `chunk ${size}`,
        ).to.deep.equal([['ünï', '日本語 ✓ 😀']]);
      }
    });

    it('decodes UTF-16 (with and without BOM) and declared single-byte encodings', async () => {
      const doc = '<?xml version="1.0" encoding="UTF-16"?><testsuite name="s"><testcase name="é"/></testsuite>';
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc, 'utf16le')]);
      const be = Buffer.from(doc, 'utf16le').swap16();
      for (const bytes of [le, Buffer.from(doc, 'utf16le'), be]) {
        const { runs } = await collectJUnit(chunksOf(bytes, 5));
        expect(runs.map((r) => r.name)).to.deep.equal(['é']);
      }
      const latin1 = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><testsuite name="s"><testcase name="caf\u00e9"/></testsuite>', 'latin1');
      expect((await collectJUnit(chunksOf(latin1, 3))).runs.map((r) => r.name)).to.deep.equal(['café']);
    });

    it('warns about unknown encodings and decodes as UTF-8', async () => {
      const { runs, issues } = await collectJUnitString(Buffer.from('<?xml version="1.0" encoding="x-made-up"?><testsuite><testcase name="t"/></testsuite>'));
      expect(runs).to.have.length(1);
      expect(codes(issues)).to.deep.equal(['unknown-encoding']);
    });

    it('accepts string chunks', async () => {
      const { runs } = await collectJUnit(chunksOf(SIMPLE, 13));
      expect(runs).to.have.length(3);
    });
  });

  describe('limits', () => {
    it('truncates long texts and attribute values to the cap and says so', async () => {
      const long = 'x'.repeat(1000);
      const xml = `<testsuite><testcase name="t"><failure message="${long}">${long}</failure><system-out>${long}</system-out></testcase></testsuite>`;
      const { runs, issues } = await collectJUnitString(xml, { maxTextChars: 100 });
      const r = runs[0]!;
      expect(r.detail?.message).to.have.length(100);
      expect(r.detail?.text).to.have.length(100);
      expect(r.systemOut).to.have.length(100);
      expect(r.truncated).to.equal(true);
      expect(codes(issues)).to.deep.equal(['text-truncated']);
    });

    it('shares one text budget between a testcase and its reruns', async () => {
      const long = 'y'.repeat(80);
      const reruns = `<rerunFailure><stackTrace>${long}</stackTrace></rerunFailure>`.repeat(5);
      const { runs } = await collectJUnitString(`<testsuite><testcase name="t"><failure>${long}</failure>${reruns}</testcase></testsuite>`, {
        maxTextChars: 100,
        maxTestcaseTextChars: 200,
      });
      const kept = runs.map((r) => (r.detail?.text ?? '').length + (r.detail?.stackTrace ?? '').length);
      expect(kept.reduce((a, b) => a + b, 0)).to.be.at.most(200);
      expect(runs).to.have.length(6);
    });

    it('stops on absurd nesting depth', async () => {
      const xml = `<testsuite><testcase name="ok"/>${'<a>'.repeat(50)}`;
      const { runs, issues } = await collectJUnitString(xml, { maxDepth: 20 });
      expect(runs.map((r) => r.name)).to.deep.equal(['ok']);
      expect(codes(issues)).to.deep.equal(['too-deep']);
    });

    it('caps the number of issues per document', async () => {
      const xml = `<testsuites>${'<testcase/>'.repeat(20)}<testsuite><testcase name="t"/></testsuite></testsuites>`;
      const { runs, issues } = await collectJUnitString(xml, { maxIssues: 3 });
      expect(runs).to.have.length(1);
      expect(codes(issues)).to.deep.equal(['testcase-outside-suite', 'testcase-outside-suite', 'testcase-outside-suite', 'issues-capped']);
    });
  });

  describe('sources', () => {
    it('reports a failing byte source as read-failed and keeps what was parsed', async () => {
      async function* failing(): AsyncGenerator<string> {
        yield '<testsuite><testcase name="a"/><testcase name="b"/>';
        throw new Error('connection reset');
      }
      const { runs, issues } = await collectJUnit(failing());
      expect(runs.map((r) => r.name)).to.deep.equal(['a', 'b']);
      expect(codes(issues)).to.deep.equal(['read-failed']);
      expect(issues[0]!.message).to.contain('connection reset');
    });

    it('reports only read-failed when the source fails before any byte', async () => {
      // eslint-disable-next-line require-yield -- a source that fails before its first byte
      async function* broken(): AsyncGenerator<string> {
        throw new Error('ENOENT');
      }
      const { runs, issues } = await collectJUnit(broken());
      expect(runs).to.deep.equal([]);
      expect(codes(issues)).to.deep.equal(['read-failed']);
    });

    it('lets the consumer stop early and releases the source', async () => {
      let finished = false;
      async function* endless(): AsyncGenerator<string> {
        try {
          yield '<testsuite>';
          for (let i = 0; ; i++) yield `<testcase name="t${i}"/>`;
        } finally {
          finished = true;
        }
      }
      const seen: string[] = [];
      for await (const item of parseJUnit(endless())) {
        if (item.kind === 'run') seen.push(item.name);
        if (seen.length === 3) break;
      }
      expect(seen).to.deep.equal(['t0', 't1', 't2']);
      expect(finished).to.equal(true);
    });

    it('reads a Node Readable', async () => {
      const { runs } = await collectJUnit(Readable.from([Buffer.from(SIMPLE)]));
      expect(runs).to.have.length(3);
    });
  });

  describe('openReport (gzip detection)', () => {
    async function readAll(source: ByteSource, maxBytes?: number): Promise<string> {
      const parts: Buffer[] = [];
      for await (const b of openReport(source, maxBytes === undefined ? {} : { maxBytes })) parts.push(b);
      return Buffer.concat(parts).toString('utf8');
    }

    it('passes plain input through and gunzips gzip input, even with the magic split across chunks', async () => {
      expect(await readAll(chunksOf(Buffer.from(SIMPLE), 1))).to.equal(SIMPLE);
      const gz = gzipSync(Buffer.from(SIMPLE));
      expect(await readAll(chunksOf(gz, 1))).to.equal(SIMPLE);
      expect(await readAll(chunksOf(gz, 4096))).to.equal(SIMPLE);
      expect(await readAll(chunksOf(Buffer.alloc(0), 1))).to.equal('');
    });

    it('handles multi-member gzip and feeds the parser', async () => {
      const half = Math.floor(SIMPLE.length / 2);
      const gz = Buffer.concat([gzipSync(SIMPLE.slice(0, half)), gzipSync(SIMPLE.slice(half))]);
      const { runs } = await collectJUnit(openReport(chunksOf(gz, 100)));
      expect(runs).to.have.length(3);
    });

    it('turns corrupt gzip into a read-failed issue when parsing', async () => {
      const gz = gzipSync(Buffer.from(SIMPLE));
      const corrupt = Buffer.concat([gz.subarray(0, 20), Buffer.alloc(50, 7)]);
      const { issues } = await collectJUnit(openReport(chunksOf(corrupt, 16)));
      expect(codes(issues)).to.include('read-failed');
    });

    it('refuses output beyond maxBytes (gzip bombs)', async () => {
      const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024));
      let error: unknown;
      try {
        await readAll(chunksOf(bomb, 1024), 1024 * 1024);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ReportTooLargeError);
    });
  });

  describe('timestamps and durations', () => {
    it('parses the spellings real reporters use', () => {
      const iso = (s: string): string | null | undefined => {
        const r = parseJUnitTimestamp(s);
        return r.ok ? (r.value?.toISOString() ?? null) : undefined;
      };
      expect(iso('2024-12-10T01:00:00.000')).to.equal('2024-12-10T01:00:00.000Z');
      expect(iso('2025-11-15T11:51:49.548396-05:00')).to.equal('2025-11-15T16:51:49.548Z');
      expect(iso('2021-03-07T10:36:56 UTC')).to.equal('2021-03-07T10:36:56.000Z');
      expect(iso('Sat, 03 Dec 2022 23:10:07 GMT')).to.equal('2022-12-03T23:10:07.000Z');
      expect(iso('2024-12-02T20:06:10.512+00:00')).to.equal('2024-12-02T20:06:10.512Z');
      expect(iso('2024-08-27T19:17:59Z')).to.equal('2024-08-27T19:17:59.000Z');
      expect(iso('2024-01-02 03:04:05+0130')).to.equal('2024-01-02T01:34:05.000Z');
      expect(iso('0001-01-01T00:00:00Z')).to.equal(null); // Go zero time
      expect(iso('')).to.equal(null);
      expect(iso('yesterday')).to.equal(undefined);
    });

    it('reports unparsable timestamps once, aggregated', async () => {
      const { runs, issues } = await collectJUnitString('<testsuite timestamp="soon"><testcase name="a" timestamp="never"/><testcase name="b"/></testsuite>');
      expect(runs.map((r) => r.startedAt)).to.deep.equal([null, null]);
      expect(codes(issues)).to.deep.equal(['unparsed-timestamp']);
    });

    it('converts seconds to milliseconds and drops negative or invalid values', () => {
      expect(parseDurationSeconds('0.001')).to.equal(1);
      expect(parseDurationSeconds('0.')).to.equal(0);
      expect(parseDurationSeconds('3.712065517902374e-05')).to.equal(0.037);
      expect(parseDurationSeconds('1,5')).to.equal(1500);
      expect(parseDurationSeconds('-1')).to.equal(null);
      expect(parseDurationSeconds('NaN')).to.equal(null);
      expect(parseDurationSeconds('abc')).to.equal(null);
      expect(parseDurationSeconds(undefined)).to.equal(null);
    });
  });
});
