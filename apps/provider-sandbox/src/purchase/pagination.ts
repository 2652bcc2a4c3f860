import type { Response } from 'express';
import { badRequest } from '../sandbox-errors.js';

export interface PageRequest {
  page: number;
  perPage: number;
}

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 100;

export function pageRequestOf(page: string | undefined, perPage: string | undefined): PageRequest {
  return {
    page: positiveInteger('page', page, 1, Number.MAX_SAFE_INTEGER),
    perPage: positiveInteger('per_page', perPage, DEFAULT_PER_PAGE, MAX_PER_PAGE),
  };
}

/**
 * DVS style: the body is the array of items and the page facts travel in headers
 * (X-Total, X-Total-Pages, X-Page, X-Per-Page).
 */
export function pageOf<T>(items: readonly T[], request: PageRequest, response: Response): T[] {
  const totalPages = Math.max(1, Math.ceil(items.length / request.perPage));
  response.setHeader('X-Total', String(items.length));
  response.setHeader('X-Total-Pages', String(totalPages));
  response.setHeader('X-Page', String(request.page));
  response.setHeader('X-Per-Page', String(request.perPage));
  const start = (request.page - 1) * request.perPage;
  return items.slice(start, start + request.perPage);
}

function positiveInteger(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d{0,8}$/.test(raw) || Number(raw) > max) {
    throw badRequest('INVALID_QUERY', `${name} must be an integer from 1 to ${max}`);
  }
  return Number(raw);
}
