import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';

// The local rules of eslint.config.js, run on source text placed at a path of the repository (the
// rules judge a file by the lib or app it sits in). No database is involved.
const root = path.resolve(import.meta.dirname, '../..');

async function lint(file: string, code: string): Promise<string[]> {
  // Plain JavaScript modules without types: loaded by URL so the compiler does not resolve them.
  const rule = (await import(pathToFileURL(path.join(root, 'eslint-rules/no-foreign-repository.js')).href)) as { default: { rules: Record<string, Rule.RuleModule> } };
  const linter = new Linter({ cwd: root });
  const messages = linter.verify(
    code,
    [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { local: rule.default }, rules: { 'local/no-foreign-repository': 'error' } }],
    { filename: path.join(root, file) },
  );
  return messages.map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
}

describe('lint rule local/no-foreign-repository', () => {
  it('refuses an app importing a repository from a lib, by #name or by a relative path', async () => {
    expect(await lint('apps/vendor-dashboard/src/pages/x.controller.ts', `import { DashboardAuditRepository, type DashboardSession } from '#dashboard';\n`)).toEqual([
      expect.stringMatching(/^local\/no-foreign-repository: apps\/vendor-dashboard may not import DashboardAuditRepository from libs\/dashboard/),
    ]);
    expect(await lint('apps/back-office/src/pages/x.controller.ts', `import type { CatalogueRepository } from '../../../../libs/purchase/src/index.js';\n`)).toHaveLength(1);
  });

  it("refuses a lib importing or re-exporting another lib's repository", async () => {
    expect(await lint('libs/settlement/src/x.ts', `import { ReconciliationExceptionsRepository } from '#reconciliation';\n`)).toEqual([
      expect.stringMatching(/libs\/settlement may not import ReconciliationExceptionsRepository from libs\/reconciliation/),
    ]);
    expect(await lint('libs/staff/src/x.ts', `export { TransactionsRepository as Transactions } from '#purchase';\n`)).toHaveLength(1);
    expect(await lint('libs/staff/src/x.ts', `export * from '#purchase';\n`)).toHaveLength(1);
  });

  it("allows a lib's own repositories, services of other libs, and repositories in tests", async () => {
    expect(await lint('libs/dashboard/src/x.ts', `import { DashboardAuditRepository } from './persistence/dashboard-audit.repository.js';\n`)).toEqual([]);
    expect(await lint('libs/dashboard/src/x.ts', `import { DashboardAuditRepository } from '#dashboard';\n`)).toEqual([]);
    expect(await lint('apps/vendor-dashboard/src/pages/x.controller.ts', `import { DashboardAuditService, type DashboardSession } from '#dashboard';\nimport { Repository } from 'typeorm';\n`)).toEqual([]);
    expect(await lint('test/dashboard/x.e2e-spec.ts', `import { DashboardAuditRepository } from '#dashboard';\n`)).toEqual([]);
  });
});
