import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min, ValidateBy, type ValidationOptions } from 'class-validator';

/** The values of APP_ENV. */
export const APP_ENVS = ['development', 'test', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

/**
 * A PostgreSQL connection URL as the pg driver reads it: `postgres://` or `postgresql://` with a
 * host, which may be a TCP host or a percent-encoded Unix-socket directory
 * (`postgres://user@%2Fvar%2Frun%2Fpostgresql/db`, how co-located clients and proxies such as
 * the Cloud SQL Auth Proxy connect), or `?host=/socket/dir`. IsUrl refuses the socket forms.
 */
export function isPostgresUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return false;
    const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname);
    return host.length > 0 && !/\s/.test(host);
  } catch {
    return false;
  }
}

export function IsPostgresUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isPostgresUrl', validator: { validate: isPostgresUrl, defaultMessage: () => '$property must be a postgres:// URL with a host or a socket directory' } }, options);
}

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value);

/**
 * An integer setting read from its environment string: at least `min`, and at most `max` when
 * given. The same decorators, applied in the same order, as writing them out on the property.
 */
export function IntSetting(min: number, max?: number): PropertyDecorator {
  // Bottom up, as TypeScript applies a written stack `@Transform @IsInt @Min @Max`.
  const decorators = [...(max === undefined ? [] : [Max(max)]), Min(min), IsInt(), Transform(toInt)];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}

const toFlag = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** An on/off setting read from its environment string: exactly `true` or `false`. */
export function FlagSetting(): PropertyDecorator {
  const decorators = [IsBoolean({ message: '$property must be true or false' }), Transform(toFlag)];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
