import { z } from 'zod';
import type { OrganisationRow } from './organisations.repository';

const OrganisationRef = z.object({ organisation_id: z.number().int(), name: z.string() });

/** Organisation, simple view (lists by default). */
export const Organisation = z
  .object({
    organisation_id: z.number().int(),
    name: z.string(),
    parent_id: z.number().int().describe('0 for a root organisation, as on input'),
    extern_organisation_id: z.string().nullable(),
  })
  .describe('Organisation, simple view (lists by default, view=simple): organisation_id, name, parent_id, extern_organisation_id.')
  .meta({ id: 'Organisation' });

/** Organisation, full view (one by id by default). */
export const OrganisationFull = Organisation.extend({
  email: z.string().nullable().describe('stored lower-case'),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  parent: OrganisationRef.nullable().describe('null for a root'),
  children: z.array(OrganisationRef).describe('direct sub-organisations, ordered by name'),
  created_at: z.string().describe('ISO 8601 date-time'),
  updated_at: z.string().describe('ISO 8601 date-time'),
})
  .describe('Organisation, full view (view=full): the simple view plus email, address, phone, parent, children, created_at, updated_at.')
  .meta({ id: 'OrganisationFull' });

/** One Organisation in the view asked for. */
export const OrganisationView = z.union([OrganisationFull, Organisation]);

type Named = { id: number; name: string };

/** parent_id is 0 for a root, the same convention the API uses on input. */
export function presentOrganisationSimple(o: OrganisationRow) {
  return {
    organisation_id: o.id,
    name: o.name,
    parent_id: o.parent_id ?? 0,
    extern_organisation_id: o.extern_organisation_id,
  };
}

export function presentOrganisationFull(o: OrganisationRow, parent: Named | undefined, children: Named[]) {
  return {
    ...presentOrganisationSimple(o),
    email: o.email,
    address: o.address,
    phone: o.phone,
    parent: parent ? { organisation_id: parent.id, name: parent.name } : null,
    children: children.map((c) => ({ organisation_id: c.id, name: c.name })),
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}
