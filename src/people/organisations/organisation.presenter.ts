import { z } from 'zod';
import type { OrganisationRow } from './organisations.repository';

const OrganisationRef = z.object({ organisation_id: z.number().int(), name: z.string() });

/** One Organisation: the simple fields always, the rest only in the full view. */
export const OrganisationView = z
  .object({
    organisation_id: z.number().int(),
    name: z.string(),
    parent_id: z.number().int().describe('0 for a root organisation, as on input'),
    extern_organisation_id: z.string().nullable(),
    email: z.string().nullable().optional().describe('stored lower-case (full view)'),
    address: z.string().nullable().optional(),
    phone: z.string().nullable().optional(),
    parent: OrganisationRef.nullable().optional().describe('null for a root (full view)'),
    children: z.array(OrganisationRef).optional().describe('direct sub-organisations, ordered by name (full view)'),
    created_at: z.string().optional().describe('ISO 8601 date-time (full view)'),
    updated_at: z.string().optional().describe('ISO 8601 date-time (full view)'),
  })
  .describe(
    'Organisation. Simple view: organisation_id, name, parent_id, extern_organisation_id; full view adds email, address, ' +
      'phone, parent, children, created_at, updated_at.',
  );

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
