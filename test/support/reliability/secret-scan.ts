/** A value that must never appear in a log line. */
export interface Secret {
  kind: 'token' | 'callback token' | 'pin' | 'serial' | 'activation code' | 'id number' | 'api key' | 'webhook secret';
  value: string;
}

export interface SecretFinding {
  kind: string;
  /** The offending log line, cut short and with the secret masked, so the report leaks nothing either. */
  line: string;
}

/** Shapes that are secrets whoever issued them. */
const PATTERNS: Array<{ kind: string; pattern: RegExp }> = [
  { kind: 'token (by shape)', pattern: /gwt_[A-Za-z0-9_-]{43}/ },
  { kind: 'webhook secret (by shape)', pattern: /whsec_[A-Za-z0-9_-]{43}/ },
  // The route table's `:token` placeholder is not a token.
  { kind: 'callback path', pattern: /\/provider\/callback\/(?!\[REDACTED\]|:token\b)[^\s"/?]+/ },
  { kind: 'activation code (by shape)', pattern: /LPA:1\$/ },
];

/**
 * Scans log output for secrets. Long secrets count anywhere; short ones (a 5-digit cash PIN)
 * only as a whole JSON string (`"38305"`), since the same digits occur innocently in ports,
 * durations and ids.
 */
export function scanForSecrets(output: string, secrets: readonly Secret[]): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const lines = output.split('\n');
  for (const line of lines) {
    for (const { kind, pattern } of PATTERNS) {
      if (pattern.test(line)) findings.push({ kind, line: mask(line, pattern) });
    }
    for (const secret of secrets) {
      if (secret.value.length === 0) continue;
      const hit = secret.value.length >= 10 ? line.includes(secret.value) : line.includes(`"${secret.value}"`);
      if (hit) findings.push({ kind: secret.kind, line: mask(line, secret.value) });
    }
  }
  return findings;
}

function mask(line: string, secret: string | RegExp): string {
  const masked = typeof secret === 'string' ? line.split(secret).join('[SECRET]') : line.replace(new RegExp(secret.source, 'g'), '[SECRET]');
  return masked.slice(0, 400);
}
