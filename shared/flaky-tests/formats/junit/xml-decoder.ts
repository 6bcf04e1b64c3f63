// Bytes → text for the XML parser, chunk by chunk. Picks the encoding the way XML does: a byte
// order mark first (and strips it), then UTF-16 detected from `<?` bytes, then the declaration's
// `encoding="…"`, else UTF-8. Multi-byte characters split across chunks are handled by the
// streaming TextDecoder.
import { TextDecoder } from 'node:util';

/** Bytes inspected for a declaration before giving up and assuming UTF-8. */
const SNIFF_LIMIT = 1024;

export interface DecoderWarning {
  message: string;
}

export class XmlByteDecoder {
  private decoder: TextDecoder | null = null;
  private head: Uint8Array[] = [];
  private headLength = 0;
  readonly warnings: DecoderWarning[] = [];

  /** Decodes a chunk; returns "" while the encoding is still being sniffed. */
  write(bytes: Uint8Array): string {
    if (this.decoder) return this.decoder.decode(bytes, { stream: true });
    this.head.push(bytes);
    this.headLength += bytes.length;
    const head = this.concatHead();
    if (!this.readyToDecide(head)) return '';
    return this.start(head);
  }

  /** Flushes what is left (incomplete trailing sequences become U+FFFD). */
  end(): string {
    if (!this.decoder) {
      const head = this.concatHead();
      return this.start(head) + this.decoder!.decode();
    }
    return this.decoder.decode();
  }

  private concatHead(): Uint8Array {
    if (this.head.length === 1) return this.head[0]!;
    const all = new Uint8Array(this.headLength);
    let o = 0;
    for (const part of this.head) {
      all.set(part, o);
      o += part.length;
    }
    this.head = [all];
    return all;
  }

  private readyToDecide(head: Uint8Array): boolean {
    if (head.length >= SNIFF_LIMIT) return true;
    if (head.length < 4) return false;
    // Not starting with "<?xml" (any encoding) → nothing more to learn from waiting.
    if (!(head[0] === 0x3c && head[1] === 0x3f)) return true;
    return head.includes(0x3e); // the declaration is complete once its '>' arrived
  }

  private start(head: Uint8Array): string {
    const encoding = this.detect(head);
    this.decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: false });
    this.head = [];
    this.headLength = 0;
    return this.decoder.decode(head, { stream: true });
  }

  private detect(b: Uint8Array): string {
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
    if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
    if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
    if (b[0] === 0x3c && b[1] === 0x00 && b[2] === 0x3f && b[3] === 0x00) return 'utf-16le';
    if (b[0] === 0x00 && b[1] === 0x3c && b[2] === 0x00 && b[3] === 0x3f) return 'utf-16be';
    // ASCII-compatible: read the declaration with a byte-transparent decoding.
    const text = new TextDecoder('latin1').decode(b.subarray(0, Math.min(b.length, SNIFF_LIMIT)));
    const m = /^<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(text);
    if (!m) return 'utf-8';
    const label = m[1]!.toLowerCase();
    // A UTF-16 declaration on single-byte content is a lie (no NULs); the bytes win.
    if (label.startsWith('utf-16') || label.startsWith('ucs-2')) return 'utf-8';
    try {
      new TextDecoder(label);
      return label;
    } catch {
      this.warnings.push({ message: `unknown encoding "${m[1]}"; decoding as UTF-8` });
      return 'utf-8';
    }
  }
}
