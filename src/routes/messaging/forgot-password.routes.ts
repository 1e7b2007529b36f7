import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { identificationBucket, isDeactivated, PersonDirectory } from '../../people';
import { MailNewPasswordFlow } from '../../flows/passwords/mail-new-password';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';
import { policies } from '../../people';

/** Per hour: an identification, and a client address (an office behind one NAT asks more). */
const PER_IDENTIFICATION: RateLimitRule = { name: 'forgot:identification', points: 5, durationSeconds: 3600, message: 'too many requests; try again later' };
const PER_ADDRESS: RateLimitRule = { name: 'forgot:address', points: 30, durationSeconds: 3600, message: 'too many requests; try again later' };
const ANSWER = 'if the identification matches an account, a new password has been sent to it; the current password keeps working until the new one is used';

export const forgotPasswordRoutes = [
  defineRoute({
    method: 'post',
    path: '/forgot_password',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'forgot_password',
    errors: [429, 503],
    summary: 'Send a new password to the person with this user name, e-mail or mobile',
    description:
      'Security: Anyone. Answers the same whether or not such a person exists. The new password is sent by e-mail ' +
      '(SMS when the person has only a mobile) and works next to the current one until used (for 72 hours); using it asks for a new password (418); ' +
      'logging in with the current one discards it, so a stranger requesting resets locks nobody out. The identification is a user name, else an e-mail ' +
      '(any case) or a mobile. The password is generated when the mail is sent and only its hash is stored. ' +
      'Per tenant and hour at most 30 requests from one client address and 5 for one identification (a mobile with any spacing ' +
      'or dashes, an e-mail address in any case, count as one); beyond that errorcode 429 with Retry-After (seconds). A deactivated person gets no mail (same answer).',
    input: z.object({ identification: p.string(320).min(1, 'must not be empty') }),
    async handler(ctx, input) {
      const limiter = ctx.resolve(TenantRateLimiter);
      // Both limits count before the lookup, so a 429 says nothing about the account.
      await limiter.hit(PER_ADDRESS, ctx.ip);
      await limiter.hit(PER_IDENTIFICATION, identificationBucket(input.identification));
      const people = await ctx.resolve(PersonDirectory).byIdentification(input.identification, ['id', 'deactivated_at']);
      const mailer = ctx.resolve(MailNewPasswordFlow);
      // a deactivated person could not log in with it: no mail (the answer is the same)
      for (const person of people) if (!isDeactivated(person)) await mailer.send(person.id, 'forgot_password');
      return { body: { valid: true, message: ANSWER } };
    },
  }),
];
