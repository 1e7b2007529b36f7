import { z } from 'zod';
import { p } from '../../platform/http/param-types';

const optionalText = (max: number) =>
  z
    .preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().trim().max(max, `must be at most ${max} characters`))
    .transform((v) => (v === '' ? null : v))
    .optional();

/** organisation_data of POST /api/organisations, and the columns of an organisations import (src/flows/imports). */
export const OrganisationData = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    parent_id: p.int().pipe(z.number().min(0, 'must be 0 (root) or an organisation id')).optional(),
    email: z
      .string()
      .trim()
      .refine((v) => v === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), 'must be an e-mail address like name@example.com')
      .transform((v) => (v === '' ? null : v.toLowerCase()))
      .optional(),
    address: optionalText(500),
    phone: optionalText(50),
    extern_organisation_id: optionalText(200),
  })
  .strict();
export type OrganisationDataInput = z.infer<typeof OrganisationData>;
