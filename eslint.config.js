// Lint rules that catch real defects; formatting is left to the editor.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
    files: ['apps/*/src/main.ts', 'libs/config/src/load-config.ts', 'libs/database/src/migrate.ts', 'libs/database/src/data-source.ts', 'libs/observability/src/start-service.ts', 'test/**', 'scripts/**', 'packages/*/examples/**', 'bench/**', '**/*.spec.ts', 'apps/provider-sandbox/**'],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
