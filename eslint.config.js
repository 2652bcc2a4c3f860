// Lint rules that catch real defects; formatting is left to the editor. Three rules keep the
// architecture of docs/ARCHITECTURE.md: the direction of dependencies between libs and apps,
// repositories used only inside their own lib, and SQL only in persistence folders. Two more
// need the types (typed linting, tsconfig.json): a promise nobody awaits and a switch that
// misses a member of the union it switches on.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import dependencyDirection from './eslint-rules/dependency-direction.js';
import noForeignRepository from './eslint-rules/no-foreign-repository.js';

const local = { rules: { ...dependencyDirection.rules, ...noForeignRepository.rules } };

// ---- Layers: which lib may import which (apps may import any lib; tests, scripts and bench are free) ----
// Platform libs, bottom up: each may import only the platform libs listed, never a domain lib.
const PLATFORM = {
  money: [],
  config: [],
  common: ['config'],
  database: ['config', 'common'],
  queues: ['config', 'common'],
  observability: ['config', 'common'],
  // What the signed-in web apps share (HTML, forms, passwords, TOTP, cookies, CSRF, sign-in limiter); no SQL.
  web: ['config', 'common', 'money'],
  // Process start-up: imported by the apps' main.ts only.
  bootstrap: ['config', 'common', 'observability'],
};
const BELOW_DOMAINS = Object.keys(PLATFORM).filter((lib) => lib !== 'bootstrap');
// Domain libs: the platform libs, and the domain libs they build on (the map must stay acyclic).
const DOMAIN = {
  providers: BELOW_DOMAINS,
  auth: BELOW_DOMAINS,
  reconciliation: BELOW_DOMAINS,
  webhooks: BELOW_DOMAINS,
  purchase: [...BELOW_DOMAINS, 'providers', 'auth', 'reconciliation', 'webhooks'],
  payout: [...BELOW_DOMAINS, 'providers', 'auth', 'reconciliation', 'webhooks'],
  settlement: [...BELOW_DOMAINS, 'providers', 'reconciliation', 'purchase', 'payout'],
  dashboard: [...BELOW_DOMAINS, 'auth', 'purchase', 'payout', 'webhooks'],
  // Reads every domain's tables, imports none of their code.
  invariants: BELOW_DOMAINS,
  // Staff identities, four eyes and the audit trail; review decisions through each domain's own outcome code.
  staff: [...BELOW_DOMAINS, 'auth', 'reconciliation', 'purchase', 'payout'],
};
const LAYERS = { ...PLATFORM, ...DOMAIN };

// ---- SQL only in persistence folders ----
const SQL_OUTSIDE_PERSISTENCE = {
  selector: 'CallExpression[callee.property.name=/^(query|createQueryBuilder|getRepository)$/]',
  message: 'SQL lives in a repository under a persistence/ folder (docs/ARCHITECTURE.md, Persistence); call the repository instead.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'off',
      // Libraries receive configuration by injection; only entry points read the environment.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Inject GatewayEnv instead of reading process.env' }],
      'no-console': 'error',
    },
  },
  {
    // Typed linting: every .ts file is in tsconfig.json (apps, libs, test, scripts, packages/*/src).
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process) and
      // its ordering; a deliberate fire-and-forget says so with `void` and a comment.
      '@typescript-eslint/no-floating-promises': 'error',
      // A status, kind or outcome added to a union must be handled wherever it is switched on; a
      // default branch does not count as handling it.
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  {
    files: ['apps/*/src/main.ts', 'libs/config/src/load-config.ts', 'libs/database/src/migrate.ts', 'libs/invariants/src/check-invariants.ts', 'apps/ops/src/data-source.ts', 'libs/bootstrap/src/start-service.ts', 'test/**', 'scripts/**', 'packages/*/examples/**', 'bench/**', '**/*.spec.ts', 'apps/provider-sandbox/**'],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    plugins: { local },
    // A lib's repositories are its own: apps and other libs call its services.
    rules: { 'local/dependency-direction': ['error', { layers: LAYERS }], 'local/no-foreign-repository': 'error' },
  },
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    // Migrations are SQL by nature; specs are tests.
    ignores: ['**/persistence/**', 'libs/database/src/migrations/**', '**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', SQL_OUTSIDE_PERSISTENCE] },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
