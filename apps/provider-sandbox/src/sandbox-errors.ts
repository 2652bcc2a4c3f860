import { HttpException } from '@nestjs/common';

/** One error body for every sandbox API, shaped like DVS: `{ errors: [{ code, message }] }`. */
export function sandboxError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): HttpException {
  return new HttpException({ errors: [{ code, message }], ...extra }, status);
}

export function badRequest(code: string, message: string): HttpException {
  return sandboxError(400, code, message);
}

export function notFound(what: string): HttpException {
  return sandboxError(404, 'NOT_FOUND', `${what} not found`);
}
