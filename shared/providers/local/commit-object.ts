// Reads the raw form of a commit (`git cat-file commit`). Replaying a commit for a rebase merge
// must keep its author, author date and message byte for byte, which formatted output
// (`git log --format`) can re-encode or reflow; the raw object cannot.

export interface RawSignature {
  name: string;
  email: string;
  /** Git's internal date form, `<unix seconds> <+hhmm>`, accepted as GIT_AUTHOR_DATE. */
  date: string;
}

export interface RawCommit {
  tree: string;
  parents: string[];
  author: RawSignature;
  /** Everything after the header block, exactly as stored. */
  message: Buffer;
  /** The `encoding` header, when the message is not UTF-8. */
  encoding: string | null;
}

const SIGNATURE = /^(.*) <([^<>]*)> (\d+ [+-]\d{4})$/;

function parseSignature(line: string, sha: string): RawSignature {
  const m = SIGNATURE.exec(line);
  if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined) {
    throw new Error(`commit ${sha} has an author line git would not write: "${line.slice(0, 200)}"`);
  }
  return { name: m[1], email: m[2], date: m[3] };
}

export function parseRawCommit(sha: string, raw: Buffer): RawCommit {
  const split = raw.indexOf('\n\n');
  const headerEnd = split === -1 ? raw.length : split;
  const message = split === -1 ? Buffer.alloc(0) : raw.subarray(split + 2);
  let tree: string | null = null;
  const parents: string[] = [];
  let author: RawSignature | null = null;
  let encoding: string | null = null;
  for (const line of raw.subarray(0, headerEnd).toString('utf8').split('\n')) {
    // Lines starting with a space continue a multi-line header (a signature); none matter here.
    if (line.startsWith(' ')) continue;
    const space = line.indexOf(' ');
    const key = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'author') author = parseSignature(value, sha);
    else if (key === 'encoding') encoding = value;
  }
  if (!tree || !author) throw new Error(`commit ${sha} lacks a tree or an author header`);
  return { tree, parents, author, message, encoding };
}
