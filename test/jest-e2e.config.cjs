// End-to-end tests: real PostgreSQL (a fresh migrated database per run), real Redis, the
// provider sandbox over HTTP. Run with `npm run test:e2e`.
const base = require('../jest.config.cjs').projects[0];

module.exports = {
  ...base,
  displayName: 'e2e',
  rootDir: '..',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/migrate.ts', '<rootDir>/test/support/sql-recorder.ts'],
  // The SQL snapshot check runs last, over the statements every other file of the run issued.
  testSequencer: '<rootDir>/test/support/sql-snapshots-last.cjs',
  testTimeout: 60_000,
  // A leaked handle must never stall CI; leaks are still reported by --detectOpenHandles runs.
  forceExit: true,
};
