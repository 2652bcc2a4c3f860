const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * Holds a PIN, serial or activation code so that logging the object that carries it cannot
 * leak it: JSON (pino), string conversion and util.inspect all print a placeholder.
 * Only `reveal()` gives the value, which makes every legitimate use easy to find.
 */
export class SecretValue<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  toJSON(): string {
    return '[REDACTED]';
  }

  toString(): string {
    return '[REDACTED]';
  }

  [INSPECT](): string {
    return 'SecretValue([REDACTED])';
  }
}
