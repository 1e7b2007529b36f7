import type { NextFunction, Request, Response } from 'express';
import qs from 'qs';
import { ApiError } from '../errors/api-error';
import { parameterName } from './zod-to-api-error';

/** Bracket groups a query string may use (person_data[email] is 1); form bodies: body-parser's 32. */
export const QS_OPTIONS = { arrayLimit: 1000, parameterLimit: 2000, depth: 5 } as const;
/** Nesting of a JSON body or any parsed value; survey data (10 item levels) needs about 22. */
export const MAX_INPUT_DEPTH = 32;

const TOO_DEEP = Symbol('query nested too deep');
const PARSE_OPTIONS = { ...QS_OPTIONS, strictDepth: true } as const;

/**
 * qs cuts a deeper key silently into a literal "[g]" key; strictDepth throws instead, and the
 * getter express calls on every req.query access must not throw, so the refusal is a marker.
 */
export function parseQueryString(str: string): Record<string, unknown> {
  if (str === '') return {}; // what qs gives, without normalising its options
  try {
    return qs.parse(str, PARSE_OPTIONS);
  } catch {
    return Object.defineProperty({}, TOO_DEEP, { value: true });
  }
}

// NUL: PostgreSQL text cannot hold it. A lone surrogate: jsonb refuses it and text would get U+FFFD.
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function describeBad(s: string): string {
  return s.includes('\u0000') ? 'contains a NUL character, which cannot be stored' : 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
}

const isPlainContainer = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/**
 * Throws a 420 naming the parameter (bracket form) when a value or key holds a character
 * PostgreSQL cannot store or nests deeper than `maxDepth`. Values other than plain objects,
 * arrays and strings (uploaded file buffers) are left alone.
 */
export function checkInputValues(value: unknown, path: (string | number)[] = [], maxDepth = MAX_INPUT_DEPTH): void {
  if (typeof value === 'string') {
    if (UNSTORABLE.test(value)) throw ApiError.malformed(parameterName(path), describeBad(value));
    return;
  }
  if (!isPlainContainer(value)) return;
  if (path.length >= maxDepth) throw ApiError.malformed(parameterName(path), `is nested deeper than ${maxDepth} levels`);
  for (const [key, v] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) throw ApiError.malformed(parameterName([...path, key]), `name ${describeBad(key)}`);
    checkInputValues(v, [...path, Array.isArray(value) ? Number(key) : key], maxDepth);
  }
}

/** Depth of nested objects/arrays, counting stops past `limit` (so a hostile value costs little). */
export function nestingDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const v of Object.values(value)) {
    deepest = Math.max(deepest, nestingDepth(v, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

/** After the body parsers: query string and body, for every route (defineRoute, files, /platform). */
export function inputGuard(maxDepth = MAX_INPUT_DEPTH) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const query = req.query as Record<string | symbol, unknown>;
    if (query[TOO_DEEP]) {
      throw new ApiError(420, `malformed request: the query string nests parameters deeper than ${QS_OPTIONS.depth} bracket levels`);
    }
    checkInputValues(query, [], maxDepth);
    checkInputValues(req.body, [], maxDepth);
    // express 5 parses the query string again on every req.query access: keep this parse
    Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
    next();
  };
}
