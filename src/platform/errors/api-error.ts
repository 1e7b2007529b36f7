/** Error codes of the spec plus the ones we add; each has one HTTP status. */
export const ERROR_STATUS = {
  400: 400, // malformed request body (unparseable JSON)
  401: 401, // not logged in
  403: 403, // not authorised
  404: 404, // not found (also: object of another tenant)
  409: 409, // conflict: e.g. locked survey answer
  413: 413, // upload or body too large
  418: 403, // must change password
  419: 400, // missing parameter
  420: 400, // malformed parameter
  423: 423, // tenant suspended
  429: 429, // rate limited
  500: 500, // unexpected server error
  501: 501, // not implemented
  503: 503, // dependency unavailable
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  constructor(
    readonly errorcode: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    /** Response headers that belong to the error, e.g. Retry-After on 429 and 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_STATUS[this.errorcode];
  }

  static unauthenticated(message = 'not logged in') {
    return new ApiError(401, message);
  }
  static forbidden(message = 'not authorised for this resource or action') {
    return new ApiError(403, message);
  }
  static notFound(what: string) {
    return new ApiError(404, `${what} not found`);
  }
  /** 429 with Retry-After in whole seconds (at least 1). */
  static tooMany(message: string, retryAfterMs: number) {
    return new ApiError(429, message, {}, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) });
  }
  static unavailable(message = 'temporarily unavailable; try again shortly') {
    return new ApiError(503, message);
  }
  static missing(param: string) {
    return new ApiError(419, `missing parameter: ${param}`, { parameter: param });
  }
  static malformed(param: string, why: string) {
    return new ApiError(420, `malformed parameter ${param}: ${why}`, { parameter: param });
  }
}
