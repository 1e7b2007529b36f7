/** The SCIM error schema (RFC 7644 §3.12). */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12 scimType values this server answers. */
export type ScimType =
  'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

/** A SCIM failure: answered as `{schemas: [Error], status, scimType?, detail}` with Content-Type application/scim+json. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  get body(): Record<string, unknown> {
    return { schemas: [SCIM_ERROR_SCHEMA], status: String(this.status), ...(this.scimType ? { scimType: this.scimType } : {}), detail: this.detail };
  }

  static invalidValue(detail: string): ScimError {
    return new ScimError(400, detail, 'invalidValue');
  }
  static invalidSyntax(detail: string): ScimError {
    return new ScimError(400, detail, 'invalidSyntax');
  }
  static invalidPath(detail: string): ScimError {
    return new ScimError(400, detail, 'invalidPath');
  }
  static invalidFilter(detail: string): ScimError {
    return new ScimError(400, detail, 'invalidFilter');
  }
  static notFound(what: string): ScimError {
    return new ScimError(404, `${what} not found`);
  }
}
