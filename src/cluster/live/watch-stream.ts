// A watch answer is newline-delimited JSON, one event per line: `{"type":"MODIFIED","object":{...}}`. Chunks
// arrive cut anywhere (inside an event, inside a multi-byte character), so lines are found on bytes: in UTF-8 the
// newline byte never occurs inside another character, and a line is decoded only once it is whole.
import {restoreExactRevisions} from '../../core/index.js';
import {MAX_ANSWER_BYTES} from '../bounded-input.js';
import {AnswerTooLargeError} from './errors.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

const NEWLINE = 0x0a;
const TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export class WatchEventSplitter {
  /** The start of a line still arriving, in the chunks it came in. */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly onEvent: (type: WatchEventType, object: unknown) => void) {}

  write(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.partial.length === 0) {
        this.line(tail);
      } else {
        this.partial.push(tail);
        const whole = Buffer.concat(this.partial);
        this.partial = [];
        this.partialBytes = 0;
        this.line(whole);
      }
    }
    if (start < chunk.length) {
      this.partial.push(chunk.subarray(start));
      // A line without end (an endless body) is refused rather than held.
      if ((this.partialBytes += chunk.length - start) > MAX_ANSWER_BYTES) throw new AnswerTooLargeError(MAX_ANSWER_BYTES);
    }
  }

  /**
   * The stream ended: a last line without its newline is an event if it parses. One cut short (the connection
   * dropped mid-event) is not: it was never applied, and the reflector resumes from the event before it.
   */
  end(): void {
    if (this.partial.length === 0) return;
    const rest = Buffer.concat(this.partial);
    this.partial = [];
    this.partialBytes = 0;
    this.line(rest);
  }

  /**
   * One line: an event, or nothing (a blank line, text that is not an event), skipped as the client-node Watch this
   * replaced skipped it: the stream goes on, and its end or its silence is judged by the reflector and the follower.
   */
  private line(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const text = bytes.toString('utf8');
    let event: {type?: unknown; object?: unknown};
    try {
      event = JSON.parse(text) as {type?: unknown; object?: unknown};
    } catch {
      return;
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || !TYPES.has(event.type)) return;
    if (typeof event.object !== 'object' || event.object === null) return;
    // A ControllerRevision's number past 2^53, which JSON.parse rounded, read exactly from the line.
    restoreExactRevisions([event.object], text);
    this.onEvent(event.type as WatchEventType, event.object);
  }
}
