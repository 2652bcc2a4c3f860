// Dockerfile lint. hadolint is not on the npm registry; the maintained npm linter is
// dockerfile-utils (the validator behind VS Code's Dockerfile support), which checks syntax,
// flags, instruction arguments and duplicated CMD/ENTRYPOINT/HEALTHCHECK. It has no
// best-practice rules, so the hadolint-style rules this project relies on are written here
// on dockerfile-ast, the parser dockerfile-utils uses.
import { DockerfileParser } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { isSecretLikeName } from './secret-names.mjs';
import { parseImageReference } from './kubernetes-policy.mjs';

const STRICT = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

const NPM_INSTALL = /\bnpm\s+(ci|install|i)\b/;

/** Targets that must exist; the HTTP ones must have a HEALTHCHECK, the one-shot ones must not. */
export const DOCKER_TARGETS = {
  'purchase-gateway': { http: true },
  'payout-gateway': { http: true },
  'reconciliation-worker': { http: true },
  'provider-sandbox': { http: true },
  ops: { http: false },
  migrate: { http: false },
};

function lineOf(instruction) {
  return instruction.getRange().start.line + 1;
}

function argumentsOf(instruction) {
  return instruction.getArgumentsContent() ?? '';
}

/** Exec form: ["a", "b"]. */
function execForm(instruction) {
  try {
    const parsed = JSON.parse(argumentsOf(instruction).replace(/^(--[a-z-]+=\S+\s+)+/, '').replace(/^CMD\s+/, ''));
    return Array.isArray(parsed) && parsed.every((part) => typeof part === 'string') ? parsed : null;
  } catch {
    return null;
  }
}

function flagValue(instruction, name) {
  return (instruction.getFlags?.() ?? []).find((flag) => flag.getName() === name)?.getValue() ?? undefined;
}

function substitute(text, variables) {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced, bare) => variables.get(braced ?? bare) ?? match);
}

function stagesOf(dockerfile) {
  const globalArgs = new Map();
  const stages = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const parts = argumentsOf(instruction).split(/\s+/).filter((part) => !part.startsWith('--'));
      const asIndex = parts.findIndex((part) => part.toUpperCase() === 'AS');
      stages.push({ base: substitute(parts[0] ?? '', globalArgs), name: asIndex >= 0 ? parts[asIndex + 1] : null, line: lineOf(instruction), instructions: [] });
    } else if (stages.length === 0) {
      if (keyword === 'ARG') {
        const [name, value] = argumentsOf(instruction).split('=');
        globalArgs.set(name.trim(), (value ?? '').trim());
      }
    } else {
      stages.at(-1).instructions.push(instruction);
    }
  }
  return { stages, globalArgs };
}

/** Instructions in effect for a stage: its ancestors' (FROM <earlier stage>) then its own. */
function effectiveInstructions(stage, stagesByName) {
  const chain = [];
  for (let current = stage; current; current = stagesByName.get(current.base)) {
    chain.unshift(current);
    if (chain.length > 50) break;
  }
  return chain.flatMap((entry) => entry.instructions);
}

function last(instructions, keyword) {
  return instructions.filter((instruction) => instruction.getKeyword() === keyword).at(-1);
}

export function lintDockerfile(content, file) {
  const findings = [];
  const at = (line) => `${file}:${line}`;

  for (const diagnostic of validate(content, STRICT)) {
    findings.push(`${at(diagnostic.range.start.line + 1)}: ${diagnostic.message}`);
  }

  const dockerfile = DockerfileParser.parse(content);
  const { stages, globalArgs } = stagesOf(dockerfile);
  const stagesByName = new Map(stages.filter((stage) => stage.name).map((stage) => [stage.name, stage]));

  for (const name of globalArgs.keys()) {
    if (isSecretLikeName(name)) findings.push(`${file}: ARG ${name} looks like a secret; build arguments stay in the image history (use a BuildKit secret mount)`);
  }

  for (const stage of stages) {
    // scratch is the empty image, not a pulled one: nothing to pin.
    if (!stagesByName.has(stage.base) && stage.base !== 'scratch') {
      const { tag, digest } = parseImageReference(stage.base);
      if (stage.base.includes('$')) findings.push(`${at(stage.line)}: base image ${stage.base} does not resolve to a fixed name`);
      else if (!tag && !digest) findings.push(`${at(stage.line)}: base image ${stage.base} has no tag; pin a versioned tag`);
      else if (tag === 'latest') findings.push(`${at(stage.line)}: base image ${stage.base} uses "latest"; pin a versioned tag`);
      else if (tag && !/\d/.test(tag)) findings.push(`${at(stage.line)}: base image tag "${tag}" carries no version`);
    }

    for (const instruction of stage.instructions) {
      const keyword = instruction.getKeyword();
      const text = argumentsOf(instruction);
      const line = lineOf(instruction);
      if (keyword === 'ADD') findings.push(`${at(line)}: use COPY instead of ADD`);
      if (keyword === 'ENV' || keyword === 'ARG') {
        const names = keyword === 'ENV' ? instruction.getProperties().map((property) => property.getName()) : [text.split('=')[0].trim()];
        for (const name of names) {
          if (isSecretLikeName(name)) findings.push(`${at(line)}: ${keyword} ${name} looks like a secret; secrets never go into an image`);
        }
      }
      if (keyword === 'RUN') {
        // Dependencies come from package.json and the lock file only, never named ad hoc.
        const install = /\bnpm\s+(?:install|i|add)\b([^&;|]*)/.exec(text);
        const named = install ? install[1].split(/\s+/).filter((word) => word && !word.startsWith('-') && word !== '\\') : [];
        if (named.length > 0) findings.push(`${at(line)}: npm install of named packages (${named.join(' ')}); add them to package.json instead`);
        if (/\bapt-get\s+install\b/.test(text)) {
          if (!text.includes('--no-install-recommends')) findings.push(`${at(line)}: apt-get install without --no-install-recommends`);
          if (!/rm -rf \/var\/lib\/apt\/lists/.test(text)) findings.push(`${at(line)}: remove /var/lib/apt/lists in the same RUN as apt-get install`);
          const packages = text.split(/apt-get\s+install\b/)[1].split(/&&|;|\|/)[0].split(/\s+/).filter((word) => word && !word.startsWith('-') && word !== '\\');
          for (const name of packages.filter((word) => !word.includes('='))) findings.push(`${at(line)}: pin the apt package version of ${name} (${name}=<version>)`);
        }
        if (/\b(curl|wget)\b[^|]*\|\s*(ba)?sh\b/.test(text)) findings.push(`${at(line)}: do not pipe downloads into a shell`);
      }
      if (keyword === 'USER' && /^(root|0)(:|$)/.test(text.trim())) findings.push(`${at(line)}: USER root`);
    }
  }

  for (const [target, { http }] of Object.entries(DOCKER_TARGETS)) {
    const stage = stagesByName.get(target);
    if (!stage) {
      findings.push(`${file}: target "${target}" is missing`);
      continue;
    }
    const instructions = effectiveInstructions(stage, stagesByName);
    const where = `${file} target ${target}`;

    const user = last(instructions, 'USER');
    if (!user) findings.push(`${where}: runs as root (no USER)`);
    else if (!/^[1-9]\d*(:\d+)?$/.test(argumentsOf(user).trim())) findings.push(`${where}: USER must be a numeric non-root uid so Kubernetes runAsNonRoot can verify it`);

    const entrypoint = last(instructions, 'ENTRYPOINT');
    const entrypointArgs = entrypoint && execForm(entrypoint);
    if (!entrypointArgs || !/(^|\/)(tini|dumb-init)$/.test(entrypointArgs[0] ?? '')) {
      findings.push(`${where}: ENTRYPOINT must start an init (tini) in exec form, so signals reach node and zombies are reaped`);
    }
    const cmd = last(instructions, 'CMD');
    if (!cmd || !execForm(cmd)) findings.push(`${where}: CMD must be in exec (JSON) form`);

    const healthcheck = last(instructions, 'HEALTHCHECK');
    const healthcheckNone = healthcheck && /^NONE$/i.test(argumentsOf(healthcheck).trim());
    if (http) {
      if (!healthcheck || healthcheckNone) findings.push(`${where}: HTTP service without a HEALTHCHECK`);
      else if (/\b(curl|wget)\b/.test(argumentsOf(healthcheck))) findings.push(`${where}: HEALTHCHECK must not need curl or wget`);
      if (!last(instructions, 'EXPOSE')) findings.push(`${where}: HTTP service without EXPOSE`);
    } else if (healthcheck && !healthcheckNone) {
      findings.push(`${where}: one-shot target must not inherit a HEALTHCHECK (HEALTHCHECK NONE)`);
    }

    // Production dependencies only: node_modules must come from a stage that installed with --omit=dev.
    for (const instruction of instructions) {
      const text = argumentsOf(instruction);
      if (instruction.getKeyword() === 'RUN' && NPM_INSTALL.test(text) && !/--omit=dev/.test(text)) {
        findings.push(`${where}: installs dev dependencies (npm install/ci without --omit=dev)`);
      }
      const from = instruction.getKeyword() === 'COPY' ? flagValue(instruction, 'from') : undefined;
      if (instruction.getKeyword() === 'COPY' && from && /node_modules/.test(text)) {
        const source = stagesByName.get(from);
        const sourceRuns = source ? effectiveInstructions(source, stagesByName).filter((entry) => entry.getKeyword() === 'RUN').map(argumentsOf) : [];
        if (!sourceRuns.some((run) => NPM_INSTALL.test(run) && /--omit=dev/.test(run))) {
          findings.push(`${where}: copies node_modules from "${from}", which did not install with --omit=dev`);
        }
      }
    }
  }
  return findings;
}

/** The .dockerignore must keep secrets and local artefacts out of the build context. */
export function checkDockerignore(content, file) {
  const patterns = content.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const findings = [];
  if (patterns[0] !== '*') findings.push(`${file}: start with "*" and allow what the Dockerfile copies (an allowlist cannot leak a new file)`);
  for (const required of ['**/.env', '**/node_modules', '**/dist']) {
    if (!patterns.includes(required)) findings.push(`${file}: must exclude ${required}`);
  }
  for (const pattern of patterns.filter((entry) => entry.startsWith('!'))) {
    if (/(^!|\/)(\.env|\.git|node_modules)/.test(pattern)) findings.push(`${file}: must not re-include ${pattern.slice(1)}`);
  }
  return findings;
}
