// Local ESLint rule: imports between the repository's libs and apps follow the layers of
// docs/ARCHITECTURE.md. It resolves both kinds of specifier, so an import cannot get round the
// rule by spelling: `#name` subpath imports (package.json "imports") and relative paths that
// climb out of their lib or app. Packages from node_modules are not its concern.
//
// Options: { layers: { <lib>: [<libs it may import>] } }. A lib missing from the map is an error
// (a new lib must be placed in a layer), and the map itself must be acyclic.
import path from 'node:path';

/** The lib or app a file belongs to (`{kind: 'libs', name: 'purchase'}`), or null outside libs/ and apps/. */
export function ownerOf(root, file) {
  const match = path.relative(root, file).split(path.sep).join('/').match(/^(libs|apps)\/([^/]+)\//);
  return match ? { kind: match[1], name: match[2] } : null;
}

/** The specifier of an import or export declaration (`'#purchase'`, `'./x.js'`), or null when it has none written as a string. */
export function sourceOf(node) {
  return node.source && node.source.type === 'Literal' && typeof node.source.value === 'string' ? node.source.value : null;
}

function findCycle(layers) {
  const state = new Map();
  const visit = (lib, trail) => {
    if (state.get(lib) === 'done') return null;
    if (state.get(lib) === 'active') return [...trail.slice(trail.indexOf(lib)), lib];
    state.set(lib, 'active');
    for (const next of layers[lib] ?? []) {
      const cycle = visit(next, [...trail, lib]);
      if (cycle) return cycle;
    }
    state.set(lib, 'done');
    return null;
  };
  for (const lib of Object.keys(layers)) {
    const cycle = visit(lib, []);
    if (cycle) return cycle;
  }
  return null;
}

export const dependencyDirection = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports point one way: apps -> domain libs -> platform libs (docs/ARCHITECTURE.md)' },
    schema: [{ type: 'object', properties: { layers: { type: 'object' } }, required: ['layers'], additionalProperties: false }],
    messages: {
      notAllowed: "libs/{{from}} may not import libs/{{to}} ('{{source}}'): {{from}} may import only {{allowed}} (docs/ARCHITECTURE.md, Layers)",
      libToApp: "libs/{{from}} may not import from apps/ ('{{source}}'): apps depend on libs, never the reverse",
      appToApp: "apps/{{from}} may not import another app's files ('{{source}}'): move what both need into a lib",
      unknownLib: 'libs/{{lib}} has no place in the layers of eslint.config.js: add it there (and to docs/ARCHITECTURE.md)',
      cycle: 'The layers of eslint.config.js form a cycle: {{cycle}}',
    },
  },
  create(context) {
    const { layers } = context.options[0];
    const root = context.cwd;
    const from = ownerOf(root, context.filename);
    if (!from) return {};
    const check = (node) => {
      const source = sourceOf(node);
      if (source === null) return;
      let to;
      if (source.startsWith('#')) to = { kind: 'libs', name: source.slice(1).split('/')[0] };
      else if (source.startsWith('.')) to = ownerOf(root, path.resolve(path.dirname(context.filename), source));
      if (!to || (to.kind === from.kind && to.name === from.name)) return;
      const report = (messageId, data) => context.report({ node: node.source, messageId, data: { source, from: from.name, to: to.name, ...data } });
      if (from.kind === 'apps') {
        if (to.kind === 'apps') report('appToApp');
        return;
      }
      if (to.kind === 'apps') return report('libToApp');
      const allowed = layers[from.name];
      if (!allowed) return report('unknownLib', { lib: from.name });
      if (!allowed.includes(to.name)) report('notAllowed', { allowed: allowed.length ? allowed.join(', ') : 'no other lib' });
    };
    return {
      Program(node) {
        const cycle = findCycle(layers);
        if (cycle) context.report({ node, messageId: 'cycle', data: { cycle: cycle.join(' -> ') } });
      },
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'dependency-direction': dependencyDirection } };
