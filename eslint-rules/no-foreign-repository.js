// Local ESLint rule: a repository is its lib's own business. An app, or another lib, calls the
// lib's services (docs/ARCHITECTURE.md, Persistence); importing a class named `*Repository` from
// another lib is an error, whether through its `#name` or a relative path that climbs into it.
// A lib's own files import its repositories freely. Tests, scripts and the benchmarks are not
// in its scope (eslint.config.js applies it to libs/ and apps/ only).
import path from 'node:path';
import { ownerOf, sourceOf } from './dependency-direction.js';

const REPOSITORY = /Repository$/;

/** The lib a specifier names (`#purchase`, `../../libs/purchase/src/...`), or null for packages and the file's own lib. */
function libOf(root, filename, source) {
  if (source.startsWith('#')) return source.slice(1).split('/')[0];
  if (!source.startsWith('.')) return null;
  const target = ownerOf(root, path.resolve(path.dirname(filename), source));
  return target && target.kind === 'libs' ? target.name : null;
}

/** The names the declaration takes from its source (imported or re-exported). */
function namesOf(node) {
  if (node.type === 'ExportAllDeclaration') return ['*'];
  return (node.specifiers ?? []).map((specifier) => {
    if (specifier.type === 'ImportSpecifier') return nameOf(specifier.imported);
    if (specifier.type === 'ExportSpecifier') return nameOf(specifier.local);
    return null;
  });
}

const nameOf = (identifier) => (identifier.type === 'Identifier' ? identifier.name : String(identifier.value));

export const noForeignRepository = {
  meta: {
    type: 'problem',
    docs: { description: "Apps and other libs call a lib's services, never its repositories (docs/ARCHITECTURE.md, Persistence)" },
    schema: [],
    messages: {
      fromApp: "apps/{{from}} may not import {{name}} from libs/{{lib}}: an app calls the lib's services; give #{{lib}} a service method for it",
      fromLib: "libs/{{from}} may not import {{name}} from libs/{{lib}}: a lib's repositories are its own; call a service of #{{lib}}",
      reexport: 'libs/{{from}} may not re-export everything of libs/{{lib}} ({{source}}): its repositories would leak with it',
    },
  },
  create(context) {
    const root = context.cwd;
    const from = ownerOf(root, context.filename);
    if (!from) return {};
    const check = (node) => {
      const source = sourceOf(node);
      const lib = source === null ? null : libOf(root, context.filename, source);
      if (!lib || (from.kind === 'libs' && from.name === lib)) return;
      for (const name of namesOf(node)) {
        if (name === '*') {
          if (from.kind === 'libs') context.report({ node: node.source, messageId: 'reexport', data: { from: from.name, lib, source } });
          continue;
        }
        if (name && REPOSITORY.test(name)) {
          context.report({ node: node.source, messageId: from.kind === 'apps' ? 'fromApp' : 'fromLib', data: { from: from.name, lib, name } });
        }
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default { rules: { 'no-foreign-repository': noForeignRepository } };
