import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the full-size chaos run is `npm run chaos`; npm test runs its short form (test/messaging/messages/chaos*.test.ts)
    exclude: ['test/bench/**', 'node_modules/**', ...(process.env.CHAOS ? [] : ['test/chaos/**'])],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup-file.ts'],
    pool: 'forks',
    // test/tenancy/tenants/archive-limits.test.ts measures memory held (after a collection), not garbage
    execArgv: ['--expose-gc'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
