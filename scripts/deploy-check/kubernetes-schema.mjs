// Validates rendered Kubernetes objects against the upstream OpenAPI schemas as packaged by
// kubernetes-models (JSON Schema validators generated from the Kubernetes API definitions).
//
// Those schemas, like upstream's, allow unknown properties, so a misspelt field
// (`readinesProbe:`) would pass them and then be rejected by `kubectl apply` (strict field
// validation). The same package ships TypeScript declarations generated from the same
// definitions; walking them with the TypeScript checker finds unknown fields without any
// hand-written field list.
import { createRequire } from 'node:module';
import ts from 'typescript';

const require = createRequire(import.meta.url);

/** kubernetes-models module path for an apiVersion and kind: "apps/v1" + "Deployment" -> "kubernetes-models/apps/v1/Deployment". */
function modelSpecifier(object) {
  return `kubernetes-models/${object.apiVersion}/${object.kind}`;
}

function isKnownModel(object) {
  if (typeof object?.apiVersion !== 'string' || typeof object?.kind !== 'string') return false;
  try {
    require.resolve(modelSpecifier(object));
    return true;
  } catch {
    return false;
  }
}

function describe(object) {
  return `${object?.kind ?? '?'}/${object?.metadata?.name ?? '?'}`;
}

/**
 * kustomize wraps long base64 values of Secret data over several lines; the API server's
 * base64 decoder (Go's encoding/json) skips the newlines, the schema's "byte" format does not.
 */
function asTheApiServerDecodesIt(object) {
  if (object.kind !== 'Secret' || !object.data) return object;
  const data = Object.fromEntries(Object.entries(object.data).map(([key, value]) => [key, typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value]));
  return { ...object, data };
}

/** JSON Schema validation of every object; an object of a kind without a schema is an error too. */
export async function validateAgainstSchemas(renderedObjects) {
  const findings = [];
  for (const object of renderedObjects.map(asTheApiServerDecodesIt)) {
    if (!isKnownModel(object)) {
      findings.push(`${describe(object)}: no Kubernetes schema for apiVersion "${object?.apiVersion}" kind "${object?.kind}"`);
      continue;
    }
    const module = await import(modelSpecifier(object));
    const Model = module[object.kind];
    try {
      new Model(object).validate();
    } catch (error) {
      const details = Array.isArray(error.errors)
        ? error.errors.map((detail) => `${detail.instancePath || '/'} ${detail.message}`).join('; ')
        : error.message;
      findings.push(`${describe(object)}: schema: ${details}`);
    }
  }
  return findings;
}

/** Builds one TypeScript program over the declarations of the kinds present and returns a field checker. */
export function createUnknownFieldFinder(objects) {
  const declarationFiles = new Map();
  for (const object of objects.filter(isKnownModel)) {
    const file = require.resolve(modelSpecifier(object)).replace(/\.js$/, '.d.ts');
    declarationFiles.set(`${object.apiVersion}/${object.kind}`, file);
  }
  const program = ts.createProgram([...new Set(declarationFiles.values())], {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  });
  const checker = program.getTypeChecker();

  function rootType(object) {
    const file = declarationFiles.get(`${object.apiVersion}/${object.kind}`);
    const source = file && program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === `I${object.kind}`);
    return exported ? checker.getDeclaredTypeOfSymbol(exported) : undefined;
  }

  function objectParts(type) {
    const parts = type.isUnion() ? type.types : [type];
    return parts.filter((part) => part.flags & ts.TypeFlags.Object);
  }

  function walk(value, type, path, findings) {
    if (value === null || typeof value !== 'object') return;
    const target = checker.getNonNullableType(type);
    if (target.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    if (Array.isArray(value)) {
      const arrayType = objectParts(target).find((part) => checker.isArrayType(part));
      if (!arrayType) return; // a type mismatch, which the schema validation reports
      const [elementType] = checker.getTypeArguments(arrayType);
      value.forEach((item, index) => walk(item, elementType, `${path}/${index}`, findings));
      return;
    }
    const parts = objectParts(target).filter((part) => !checker.isArrayType(part));
    if (parts.length === 0) return;
    const indexed = parts.flatMap((part) => checker.getIndexInfosOfType(part));
    if (indexed.length > 0) {
      // A map such as labels or resources.limits: any key, values of the index type.
      for (const [key, child] of Object.entries(value)) walk(child, indexed[0].type, `${path}/${key}`, findings);
      return;
    }
    if (parts.every((part) => checker.getPropertiesOfType(part).length === 0)) return; // free-form object
    for (const [key, child] of Object.entries(value)) {
      const property = parts.map((part) => checker.getPropertyOfType(part, key)).find(Boolean);
      if (!property) {
        findings.push(`${path}/${key}: unknown field`);
        continue;
      }
      walk(child, checker.getTypeOfSymbol(property), `${path}/${key}`, findings);
    }
  }

  return function unknownFields(object) {
    const type = isKnownModel(object) ? rootType(object) : undefined;
    if (!type) return [];
    const findings = [];
    walk(object, type, '', findings);
    return findings.map((finding) => `${describe(object)}: ${finding}`);
  };
}
