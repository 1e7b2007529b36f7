import { ApiError } from '../../platform/errors/api-error';

/** Every refused sign-in (OIDC or SAML): 401 in the envelope, and no session. */
export class SsoRefused extends ApiError {
  constructor(why: string) {
    super(401, `sign-in refused: ${why}`);
  }
}
