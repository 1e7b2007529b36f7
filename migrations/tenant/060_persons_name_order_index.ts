import type { Knex } from 'knex';

/**
 * Person lists are ordered by lastname, firstname, id. Over a large subtree (a whole
 * organisation) this index lets a page be read in order and stop at the limit, instead of
 * sorting every member for each page.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw('create index persons_name_order on persons (lastname, firstname, id)');
}
