import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tests/*/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // Every gateway response in the suite is parsed against its schema and must come out unchanged.
    env: { GATEWAY_CHECK_RESPONSES: '1' },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/vitest.json' },
  },
});
