import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // at least two workers even on 2 cores: most tests wait on a child process (the real CLI, tmux, a shell), so a
    // second worker fills that wait (issue 28: ~600 s → ~350 s wall on 2 cores); the tmux tests run their own servers
    maxWorkers: Math.max(2, availableParallelism() - 1),
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_EC2_METADATA_DISABLED: 'true',
      NO_COLOR: '1',
    },
  },
});
