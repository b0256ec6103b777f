// `npm test`: every test but the real-control-plane ones (vitest.e2e.config.ts). The timeouts are guards for a
// test that hangs, not speed checks (those are `npm run bench`): a busy 2-core machine runs a CLI test several
// times slower than a quiet one, and the suite must still pass there.
import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
