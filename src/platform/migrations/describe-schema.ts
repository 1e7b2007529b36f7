import type { Knex } from 'knex';

/**
 * What a schema is made of, as the PostgreSQL catalog describes it, one row per object:
 * relations (kind, persistence, owner, privileges, row security, whether it has a TOAST table),
 * columns (type, not null, default, identity, generated, collation, comment), sequences (their
 * parameters, owning column and state), indexes, constraints, triggers (not the internal ones a
 * foreign key makes: their names carry OIDs; the constraint covers them), functions (their full
 * definition), views, policies, free-standing types and the rows of `schema_migrations` (names,
 * not times). The schema's own name is written as `@`, so two schemas made alike describe
 * alike. No OIDs appear. (Reads pg_class and friends by namespace, which has no index of its
 * own: a scan of the catalog, fine once per recording and in tests, not per spare.)
 */
function catalogSql(schema: string): string {
  // `n` is the schema's pg_namespace row; its name followed by a dot is written as `@.`
  return `
with n as (select oid, nspname from pg_namespace where nspname = ${schema}),
rel as (select c.* from pg_class c, n where c.relnamespace = n.oid)
select kind, detail from (
  select 'relation' as kind, concat_ws(' ', relname, relkind, relpersistence, relreplident, pg_get_userbyid(relowner), relacl::text,
    relrowsecurity, relforcerowsecurity, reltoastrelid <> 0, reloptions::text, obj_description(oid, 'pg_class')) as detail from rel
  union all
  select 'column', concat_ws(' ', c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
    replace(pg_get_expr(d.adbin, d.adrelid), (select nspname from n) || '.', '@.'), a.attidentity, a.attgenerated,
    a.attcollation::regcollation, col_description(c.oid, a.attnum))
    from rel c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
  union all
  select 'sequence', concat_ws(' ', c.relname, format_type(s.seqtypid, null), s.seqstart, s.seqincrement, s.seqmax, s.seqmin,
    s.seqcache, s.seqcycle, pg_sequence_last_value(c.oid),
    (select t.relname || '.' || a.attname from pg_depend dep join pg_class t on t.oid = dep.refobjid
       join pg_attribute a on a.attrelid = t.oid and a.attnum = dep.refobjsubid
     where dep.classid = 'pg_class'::regclass and dep.objid = c.oid and dep.deptype in ('a', 'i')))
    from rel c join pg_sequence s on s.seqrelid = c.oid
  union all
  select 'index', replace(pg_get_indexdef(i.indexrelid), ' ' || (select nspname from n) || '.', ' @.')
    from rel c join pg_index i on i.indrelid = c.oid
  union all
  select 'constraint', concat_ws(' ', coalesce(c.relname, '-'), k.conname, k.contype, k.convalidated, k.condeferrable,
    k.condeferred, replace(pg_get_constraintdef(k.oid), (select nspname from n) || '.', '@.'))
    from pg_constraint k join n on k.connamespace = n.oid left join pg_class c on c.oid = k.conrelid
  union all
  select 'trigger', concat_ws(' ', c.relname, t.tgenabled, replace(pg_get_triggerdef(t.oid), (select nspname from n) || '.', '@.'))
    from rel c join pg_trigger t on t.tgrelid = c.oid and not t.tgisinternal
  union all
  select 'function', replace(pg_get_functiondef(p.oid), (select nspname from n) || '.', '@.')
    from pg_proc p join n on p.pronamespace = n.oid where p.prokind in ('f', 'p')
  union all
  select 'view', concat_ws(' ', c.relname, replace(pg_get_viewdef(c.oid), (select nspname from n) || '.', '@.'))
    from rel c where c.relkind in ('v', 'm')
  union all
  select 'policy', concat_ws(' ', c.relname, p.polname, p.polcmd, p.polpermissive, array(select pg_get_userbyid(r) from unnest(p.polroles) r)::text,
    pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
    from rel c join pg_policy p on p.polrelid = c.oid
  union all
  select 'type', concat_ws(' ', t.typname, t.typtype, format_type(t.oid, null))
    from pg_type t join n on t.typnamespace = n.oid where t.typrelid = 0 and t.typelem = 0
) described`;
}

/**
 * The catalog rows of `schema`, sorted, then its `schema_migrations` names (kind `migration`).
 * Read with an empty search_path (set for its own transaction), as the catalog functions
 * qualify names by it.
 */
export async function describeSchema(db: Knex | Knex.Transaction, schema: string): Promise<string[]> {
  return db.transaction(async (trx) => {
    await trx.raw("select set_config('search_path', '', true)");
    const { rows } = await trx.raw(`${catalogSql('?')} order by kind, detail`, [schema]);
    const table = await trx.raw('select to_regclass(?) as t', [`"${schema.replace(/"/g, '""')}".schema_migrations`]);
    const names: string[] = table.rows[0].t ? await trx.withSchema(schema).table('schema_migrations').orderBy('name').pluck('name') : [];
    return [...rows.map((r: { kind: string; detail: string }) => `${r.kind}: ${r.detail}`), ...names.map((m) => `migration: ${m}`)];
  });
}
