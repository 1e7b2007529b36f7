import type { Knex } from 'knex';

/** Tenant schema: people, organisation tree, catalogue, events, registrations. */
export async function up(trx: Knex.Transaction): Promise<void> {
  const ts = (t: Knex.CreateTableBuilder) => {
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
  };

  await trx.schema.createTable('organisations', (t) => {
    t.increments('id');
    t.integer('parent_id').references('id').inTable('organisations').onDelete('RESTRICT');
    t.text('ref');
    t.text('name').notNullable();
    t.text('email');
    t.text('address');
    t.text('phone');
    t.text('extern_organisation_id');
    ts(t);
    t.index(['parent_id']);
    t.index(['extern_organisation_id']);
  });

  await trx.schema.createTable('roles', (t) => {
    t.increments('id');
    t.text('ref');
    t.text('name').notNullable();
    t.text('description');
    t.text('meta_type').notNullable().defaultTo('role'); // role | specialrole | position
    ts(t);
  });

  await trx.schema.createTable('persons', (t) => {
    t.increments('id');
    t.text('user_name').notNullable().unique();
    t.text('password_hash');
    t.timestamp('password_changed_at', { useTz: true });
    // null, or why the next request must change the password: changed_by_other | sent_by_mail
    t.text('must_change_password');
    t.text('firstname');
    t.text('lastname');
    t.text('jobtitle');
    t.text('mobile');
    t.text('email');
    t.date('birthdate');
    t.text('extern_person_id');
    t.text('address');
    t.text('postcode');
    t.text('city');
    t.text('phone');
    t.text('sex');
    t.text('notice');
    t.text('employee_code');
    t.text('profile_image');
    t.text('source');
    t.text('code');
    t.integer('organisation_id').references('id').inTable('organisations').onDelete('SET NULL');
    t.boolean('superuser').notNullable().defaultTo(false);
    ts(t);
    t.index(['organisation_id']);
    t.index(['extern_person_id']);
    t.index(['email']);
    t.index(['mobile']);
  });

  await trx.schema.createTable('person_roles', (t) => {
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('CASCADE');
    t.primary(['person_id', 'role_id']);
    t.index(['role_id']);
  });

  await trx.schema.createTable('organisation_managers', (t) => {
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.integer('organisation_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.primary(['person_id', 'organisation_id']);
    t.index(['organisation_id']);
  });

  await trx.schema.createTable('competence_groups', (t) => {
    t.increments('id');
    t.integer('parent_id').references('id').inTable('competence_groups').onDelete('CASCADE');
    t.text('ref');
    t.text('name').notNullable();
    t.text('external_id');
    ts(t);
  });

  await trx.schema.createTable('categories', (t) => {
    t.increments('id');
    t.integer('parent_id').references('id').inTable('categories').onDelete('CASCADE');
    t.text('ref');
    t.text('name').notNullable();
    t.text('description');
    ts(t);
  });

  await trx.schema.createTable('attributes', (t) => {
    t.increments('id');
    t.text('ref');
    t.text('name').notNullable();
    ts(t);
  });

  await trx.schema.createTable('competences', (t) => {
    t.increments('id');
    t.integer('parent_id').references('id').inTable('competences').onDelete('CASCADE');
    t.text('ref');
    t.text('title').notNullable();
    t.text('description');
    // course, group, module, ecourse, checklist, checklist_item, signature, formal, skill, survey, question
    t.text('type').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('valid_months');
    t.integer('competence_group_id').references('id').inTable('competence_groups').onDelete('SET NULL');
    t.integer('owner_id').references('id').inTable('persons').onDelete('SET NULL');
    t.integer('instructor_id').references('id').inTable('persons').onDelete('SET NULL');
    t.text('checked_by'); // checklist items: self | manager | both
    t.text('lms_start_url');
    t.jsonb('custom_attributes').notNullable().defaultTo('{}');
    t.integer('sort_order').notNullable().defaultTo(0);
    ts(t);
    t.index(['parent_id']);
    t.index(['competence_group_id']);
    t.index(['type']);
  });

  await trx.schema.createTable('competence_categories', (t) => {
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    t.integer('category_id').notNullable().references('id').inTable('categories').onDelete('CASCADE');
    t.primary(['competence_id', 'category_id']);
  });

  await trx.schema.createTable('competence_attributes', (t) => {
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    t.integer('attribute_id').notNullable().references('id').inTable('attributes').onDelete('CASCADE');
    t.primary(['competence_id', 'attribute_id']);
  });

  await trx.schema.createTable('requirements', (t) => {
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('CASCADE');
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    t.boolean('mandatory').notNullable().defaultTo(true);
    t.primary(['role_id', 'competence_id']);
    t.index(['competence_id']);
  });

  await trx.schema.createTable('locations', (t) => {
    t.increments('id');
    t.text('ref');
    t.text('name').notNullable();
    t.text('address');
    t.integer('capacity');
    t.double('latitude');
    t.double('longitude');
    ts(t);
  });

  await trx.schema.createTable('events', (t) => {
    t.increments('id');
    t.integer('parent_id').references('id').inTable('events').onDelete('CASCADE');
    t.text('ref');
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('RESTRICT');
    t.text('title').notNullable();
    t.text('description');
    t.integer('location_id').references('id').inTable('locations').onDelete('SET NULL');
    t.integer('host_organisation_id').references('id').inTable('organisations').onDelete('SET NULL');
    t.integer('instructor_id').references('id').inTable('persons').onDelete('SET NULL');
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.timestamp('signon_opens', { useTz: true });
    t.timestamp('signon_closes', { useTz: true });
    t.integer('max_participants');
    t.integer('min_age');
    t.boolean('cancelled').notNullable().defaultTo(false);
    t.boolean('locked').notNullable().defaultTo(false);
    t.jsonb('custom_attributes').notNullable().defaultTo('{}');
    ts(t);
    t.index(['competence_id']);
    t.index(['parent_id']);
    t.index(['starts_at']);
    t.index(['location_id']);
  });

  await trx.schema.createTable('event_prerequisites', (t) => {
    t.integer('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    t.primary(['event_id', 'competence_id']);
  });

  await trx.schema.createTable('orders', (t) => {
    t.increments('id');
    t.text('reference');
    t.integer('person_id').references('id').inTable('persons').onDelete('SET NULL');
    ts(t);
  });

  await trx.schema.createTable('person_events', (t) => {
    t.increments('id');
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.integer('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('signed_on'); // signed_on | waitlist | signed_off
    t.boolean('passed');
    t.integer('order_id').references('id').inTable('orders').onDelete('SET NULL');
    t.timestamp('signed_off_at', { useTz: true });
    ts(t);
    t.index(['event_id', 'status']);
    t.index(['person_id']);
  });
  // One live sign-on per person and event; signed-off rows stay as history.
  await trx.raw("create unique index person_events_live on person_events (person_id, event_id) where status <> 'signed_off'");

  await trx.schema.createTable('person_competences', (t) => {
    t.bigIncrements('id');
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    t.integer('passed').notNullable().defaultTo(100);
    t.date('date');
    t.date('valid_until');
    t.text('comments');
    t.double('grade');
    t.text('school');
    t.text('graduation_year');
    t.integer('skill_level');
    t.boolean('checked'); // checklist items
    t.boolean('signed'); // signatures
    t.boolean('show_course_diploma');
    t.integer('registered_by').references('id').inTable('persons').onDelete('SET NULL');
    // A newer registration supersedes the older one; superseded and deleted rows are history.
    t.timestamp('superseded_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    ts(t);
    t.index(['person_id', 'competence_id']);
    t.index(['updated_at']);
  });
  await trx.raw(
    'create unique index person_competences_current on person_competences (person_id, competence_id) where superseded_at is null and deleted_at is null',
  );
}
