// `npm run test:e2e`: the suites that need a real control plane (scripts/real-cluster). Not part of `npm test`:
// their files end in .e2e.ts, which vitest's default include does not match.
import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/real-cluster/**/*.e2e.ts'],
    // Building the control plane on a fresh machine takes about 15 minutes on 2 cores.
    hookTimeout: 45 * 60_000,
    testTimeout: 5 * 60_000,
    fileParallelism: false,
  },
});
