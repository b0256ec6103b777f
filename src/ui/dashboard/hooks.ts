// What both dashboard containers (one cluster, the fleet) do alike: follow the terminal's size, and hand a feed's
// latest value on at most once per redraw interval.
import {useStdout} from 'ink';
import {useEffect, useState} from 'react';
import type {TerminalSize} from './layout.js';

function terminalSize(stdout: NodeJS.WriteStream): TerminalSize {
  return {columns: stdout.columns || 80, rows: stdout.rows || 24};
}

/** `fixed` (tests, benchmarks), else the terminal's size, following resizes. */
export function useTerminalSize(fixed: TerminalSize | undefined): TerminalSize {
  const {stdout} = useStdout();
  const [terminal, setTerminal] = useState<TerminalSize>(() => terminalSize(stdout));
  const following = fixed === undefined;
  useEffect(() => {
    if (!following) return undefined;
    const onResize = () => setTerminal(terminalSize(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, following]);
  return fixed ?? terminal;
}

/**
 * Coalesces a feed: the first value shows at once, later ones at most once per interval (the latest wins).
 * `onEach` hears every value as it comes (the observed pace counts them all).
 */
export function useCoalesced<T>(
  feed: {subscribe(listener: (value: T) => void): () => void},
  clock: () => number,
  interval: number,
  onEach?: (value: T) => void,
): T | undefined {
  const [value, setValue] = useState<T>();
  useEffect(() => {
    let latest: T | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastFlush = Number.NEGATIVE_INFINITY;
    const flush = () => {
      timer = undefined;
      lastFlush = clock();
      setValue(latest);
    };
    const unsubscribe = feed.subscribe((next) => {
      latest = next;
      onEach?.(next);
      if (timer === undefined) timer = setTimeout(flush, Math.max(0, lastFlush + interval - clock()));
    });
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
    // The clock, interval and onEach are fixed for the dashboard's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [feed]);
  return value;
}
