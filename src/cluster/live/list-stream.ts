// Reads a Kubernetes List (`{"kind":"PodList",...,"metadata":{...},"items":[{...},...]}`) as it arrives and
// hands over each item's JSON text on its own, so a page of 10,000 pods is never a 50 MB string plus its object
// graph at once: each item is parsed, projected to its slim shape and dropped. A byte scanner is enough: in UTF-8
// every byte of a multi-byte character is >= 0x80, so braces, brackets and quotes are always what they seem.

import {MAX_ANSWER_BYTES} from '../bounded-input.js';
import {AnswerTooLargeError} from './errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export class ListItemSplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Inside the top-level `items` array. */
  private inItems = false;
  /** Parts of the item being read (it may span chunks). */
  private itemParts: Buffer[] = [];
  private inItem = false;
  /** The document without its items (`"items":[]`), parsed at the end for metadata. */
  private envelope: Buffer[] = [];
  /** The last string closed at depth 1 (a key or a short value), to recognise `"items":[`. */
  private keyParts: Buffer[] = [];
  private lastKey = '';
  /** Bytes held for the item being read and the envelope, refused past MAX_ANSWER_BYTES (an endless body). */
  private held = 0;

  constructor(private readonly onItem: (json: string) => void) {}

  write(chunk: Buffer): void {
    let itemStart = this.inItem ? 0 : -1;
    let envelopeStart = this.inItems ? -1 : 0;
    let keyStart = this.inString && this.depth === 1 && !this.inItems ? 0 : -1;
    // Most of a list's bytes are inside strings: those are skipped with the native indexOf, from one quote or
    // backslash to the next, instead of byte by byte. Both positions are searched once and reused until passed.
    let nextQuote = -1;
    let nextBackslash = -1;
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        if (nextQuote < i) nextQuote = chunk.indexOf(QUOTE, i);
        if (nextBackslash < i && nextBackslash !== -2) {
          nextBackslash = chunk.indexOf(BACKSLASH, i);
          if (nextBackslash === -1) nextBackslash = -2; // none left in this chunk
        }
        if (nextBackslash >= 0 && (nextQuote < 0 || nextBackslash < nextQuote)) {
          this.escaped = true;
          i = nextBackslash + 1;
          continue;
        }
        if (nextQuote < 0) break;
        i = nextQuote;
        this.inString = false;
        if (keyStart >= 0) {
          this.keyParts.push(chunk.subarray(keyStart, i));
          this.lastKey = Buffer.concat(this.keyParts).toString('utf8');
          this.keyParts = [];
          keyStart = -1;
        }
        i++;
        continue;
      }
      const byte = chunk[i]!;
      switch (byte) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1) keyStart = i + 1;
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          this.depth++;
          if (this.depth === 2 && byte === OPEN_BRACKET && this.lastKey === 'items') {
            this.inItems = true;
            this.envelope.push(chunk.subarray(envelopeStart, i + 1));
            envelopeStart = -1;
          } else if (this.inItems && this.depth === 3) {
            this.inItem = true;
            itemStart = i;
          }
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          if (this.inItem && this.depth === 3) {
            this.itemParts.push(chunk.subarray(itemStart, i + 1));
            const json = this.itemParts.length === 1 ? this.itemParts[0]!.toString('utf8') : Buffer.concat(this.itemParts).toString('utf8');
            this.itemParts = [];
            this.held = 0;
            this.inItem = false;
            itemStart = -1;
            this.onItem(json);
          } else if (this.inItems && this.depth === 2) {
            this.inItems = false;
            envelopeStart = i;
          }
          this.depth--;
          break;
        default:
          break;
      }
      i++;
    }
    if (this.inItem && itemStart >= 0) this.itemParts.push(chunk.subarray(itemStart));
    if (envelopeStart >= 0) this.envelope.push(chunk.subarray(envelopeStart));
    if (keyStart >= 0) this.keyParts.push(chunk.subarray(keyStart));
    this.held += length;
    if (this.held > MAX_ANSWER_BYTES) throw new AnswerTooLargeError(MAX_ANSWER_BYTES);
  }

  /** The document's other fields (metadata with resourceVersion and continue), once the body is complete. */
  end(): Record<string, unknown> {
    if (this.depth !== 0 || this.inString) throw new Error('the list ended before its JSON was complete');
    const parsed: unknown = JSON.parse(Buffer.concat(this.envelope).toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the list is not a JSON object');
    return parsed as Record<string, unknown>;
  }
}
