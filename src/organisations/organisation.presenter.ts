import type { OrganisationRow } from './organisations.repository';

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
