// `npm test`: every test but the real-control-plane ones (vitest.e2e.config.ts). The timeouts are guards for a
// test that hangs, not speed checks (those are `npm run bench`): a busy 2-core machine runs a CLI test several
// times slower than a quiet one, and the suite must still pass there. Two workers even on two cores: most of a CLI
// test's time is its child process and the simulated cluster waiting, so a second file fills the gaps (npm test
// took 6 min on 2 quiet cores with two, about 11 with vitest's default of cores - 1).
import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
