import type { PersonRow, PersonDetails } from './persons.repository';

/** List view: who the person is and how to reach them. */
export function presentPersonSimple(p: PersonRow) {
  return {
    person_id: p.id,
    user_name: p.user_name,
    firstname: p.firstname,
    lastname: p.lastname,
    jobtitle: p.jobtitle,
    email: p.email,
    mobile: p.mobile,
    organisation_id: p.organisation_id,
    employee_code: p.employee_code,
  };
}

/** Single-object view: every stored field except credentials, plus organisation, roles and managed organisations. */
export function presentPersonFull(p: PersonRow, d: PersonDetails) {
  return {
    ...presentPersonSimple(p),
    birthdate: p.birthdate,
    extern_person_id: p.extern_person_id,
    address: p.address,
    postcode: p.postcode,
    city: p.city,
    phone: p.phone,
    sex: p.sex,
    notice: p.notice,
    profile_image: p.profile_image,
    source: p.source,
    code: p.code,
    superuser: p.superuser,
    organisation: d.organisation ? { organisation_id: d.organisation.id, name: d.organisation.name } : null,
    roles: d.roles.map((r) => ({ role_id: r.id, name: r.name, meta_type: r.meta_type })),
    manages: d.manages.map((o) => ({ organisation_id: o.id, name: o.name })),
    password_changed_at: p.password_changed_at,
    must_change_password: p.must_change_password,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}
