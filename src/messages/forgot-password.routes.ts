import { z } from 'zod';
import { defineRoute } from '../platform/http/define-route';
import { p } from '../platform/http/param-types';
import { Recipients } from './recipients';
import { PasswordMailer } from './password-mailer';
import { RateLimiter } from './rate-limiter';

/** Per hour: an identification, and a client address (an office behind one NAT asks more). */
const PER_IDENTIFICATION = 5;
const PER_ADDRESS = 30;
const ANSWER = 'if the identification matches an account, a new password has been sent to it; the current password keeps working until the new one is used';

export const forgotPasswordRoutes = [
  defineRoute({
    method: 'post',
    path: '/forgot_password',
    access: 'anyone',
    duringPasswordChange: true,
    resource: 'forgot_password',
    summary: 'Send a new password to the person with this user name, e-mail or mobile',
    description:
      'Security: Anyone. Answers the same whether or not such a person exists. The new password is sent by e-mail ' +
      '(SMS when the person has only a mobile) and works next to the current one until used; using it asks for a new password (418).',
    input: z.object({ identification: p.string(320).min(1, 'must not be empty') }),
    async handler(ctx, input) {
      const limiter = ctx.resolve(RateLimiter);
      // Both limits count before the lookup, so a 429 says nothing about the account.
      await limiter.hit('forgot:address', ctx.ip, PER_ADDRESS, 3600);
      await limiter.hit('forgot:identification', input.identification.toLowerCase(), PER_IDENTIFICATION, 3600);
      const people = await ctx.resolve(Recipients).byIdentification(input.identification);
      const mailer = ctx.resolve(PasswordMailer);
      for (const person of people) await mailer.sendNewPassword(person.id, 'forgot_password');
      return { body: { valid: true, message: ANSWER } };
    },
  }),
];
