import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every response the tests see is checked against the OpenAPI document.
    setupFiles: ['test/helpers/contract-setup.ts'],
    // Integration tests open real sockets and databases; 2-core CI machines are noisy.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
