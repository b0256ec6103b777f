// Driving Ink components in tests, in the manner of Shopify's testing/ui.ts: wait for input readiness, send keys,
// wait until the frame shows what is expected.
import type {render} from 'ink-testing-library';
import {plain} from './fixtures.js';

export type Rendered = ReturnType<typeof render>;

export const KEYS = {
  down: '\u001B[B',
  up: '\u001B[A',
  enter: '\r',
  escape: '\u001B',
  tab: '\t',
  backspace: '\u007F',
} as const;

export const tick = (ms = 10) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `check` passes on the last frame (plain text), or fails with the frame. */
export async function waitForFrame(rendered: Rendered, check: (frame: string) => boolean, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = plain(rendered.lastFrame());
    if (check(frame)) return frame;
    if (Date.now() > deadline) throw new Error(`frame did not match in ${timeoutMs} ms:\n${frame}`);
    await tick(5);
  }
}

export function waitForText(rendered: Rendered, text: string | RegExp, timeoutMs?: number): Promise<string> {
  return waitForFrame(rendered, (frame) => (typeof text === 'string' ? frame.includes(text) : text.test(frame)), timeoutMs);
}

/** Writes keys one at a time, letting Ink handle each. */
export async function press(rendered: Rendered, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    rendered.stdin.write(key);
    await tick(15);
  }
}
