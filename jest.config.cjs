// Jest runs in its native ESM mode (NestJS 12 is ESM-only): the tests run under node --experimental-vm-modules
// with ts-jest's ESM transform, and relative '.js' imports are mapped back to the TypeScript sources.
const { imports } = require('./package.json');

// Map every "#lib" subpath import to its TypeScript source, so tests never need a build.
const libMappers = Object.fromEntries(
  Object.entries(imports).map(([alias, target]) => [`^${alias}$`, `<rootDir>/${target.types.replace(/^\.\//, '')}`]),
);

const unit = {
  displayName: 'unit',
  rootDir: __dirname,
  testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/packages/*/src/**/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { ...libMappers, '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }] },
  testEnvironment: 'node',
};

module.exports = { projects: [unit] };
