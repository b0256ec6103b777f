// Apart from flags.ts (which loads oclif's flag parser) so that an early read (early-plan.ts) can use it too.

/** The default request timeout: two tries without an answer report a frozen cluster within about 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 15;
