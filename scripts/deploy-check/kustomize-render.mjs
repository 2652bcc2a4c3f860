import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

export class KubectlMissingError extends Error {}

/** `kubectl kustomize DIR`, parsed into plain objects. kubectl bundles kustomize and needs no cluster. */
export function renderOverlay(kubectl, overlayDir) {
  const result = spawnSync(kubectl, ['kustomize', overlayDir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error && result.error.code === 'ENOENT') {
    throw new KubectlMissingError(
      `"${kubectl}" was not found on PATH. The deploy check needs kubectl (it bundles kustomize; no cluster is needed). ` +
        'Install kubectl, or set KUBECTL=/path/to/kubectl.',
    );
  }
  if (result.error) throw result.error;
  if (result.status !== 0) {
    return { objects: [], error: `kubectl kustomize failed (exit ${result.status}): ${result.stderr.trim()}` };
  }
  const documents = parseAllDocuments(result.stdout);
  const problems = documents.flatMap((document) => document.errors.map((error) => error.message));
  if (problems.length > 0) return { objects: [], error: `kustomize output is not valid YAML: ${problems.join('; ')}` };
  return { objects: documents.map((document) => document.toJS()).filter((object) => object !== null), error: null };
}
