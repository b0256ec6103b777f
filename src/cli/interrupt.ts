// Ctrl-C (or SIGTERM) for commands that change the cluster step by step: the first stops at the next safe point
// (the service sees the signal), a second one exits at once with 130.
export interface Interrupt {
  readonly signal: AbortSignal;
  /** Gives SIGINT and SIGTERM back to Node's defaults. */
  dispose(): void;
}

export function stopAtSafePoint(out: NodeJS.WritableStream): Interrupt {
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    if (++interrupts > 1) process.exit(130);
    out.write('\nStopping at the next safe point (Ctrl-C again to exit at once)...\n');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
