// Container tests: the images built by scripts/test-containers.sh, run with podman against real
// PostgreSQL and Redis. Run with `npm run test:containers` (it builds the images first).
const base = require('../jest.config.cjs').projects[0];

module.exports = {
  ...base,
  displayName: 'containers',
  rootDir: '..',
  testMatch: ['<rootDir>/test/containers/**/*.container-spec.ts'],
  testTimeout: 120_000,
  forceExit: true,
};
