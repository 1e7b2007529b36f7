import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Recipient } from './recipients';
import { PRIORITY, STORED, stored, type Medium, type NewMessage, type StoredMessage, type StoredRow } from './message-rows';

/** A superuser's message to a person named by user name, with the media it goes by. */
export interface ToUserName {
  userName: string;
  message: Omit<NewMessage, 'recipient_id' | 'deliveries'>;
  media: readonly Medium[];
  /** The trace of the request that sends it (its deliveries carry it to the worker); taken when the request is made, as a batch runs in another request's context. */
  traceparent?: string | null;
}

/**
 * Where the statement finds its recipients: persons are people's, so the caller (a flow) gives the
 * sub-queries. Each selects RECIPIENT_COLUMNS of the persons named, from people's tables alone: it
 * refers to no alias of the statement it is placed in.
 */
export interface RecipientsByUserName {
  /** The person with this user name (no row: none). */
  named(db: TenantDb, userName: string): Knex.QueryBuilder;
  /** The persons whose user name is among `userNames`, a sub-query the statement gives (over its own CTE). */
  namedIn(db: TenantDb, userNames: Knex.Raw): Knex.QueryBuilder;
}

/**
 * person: undefined when there is no such person; stored: undefined when the recipient lacks an
 * address for one of the media (nothing is written then).
 */
export interface ToUserNameResult {
  person?: Recipient;
  stored?: StoredMessage;
}

type ResultRow = (StoredRow & { person: Recipient | null; message: StoredRow['message'] | null }) | undefined;

function resultOf(row: ResultRow): ToUserNameResult {
  if (!row?.person) return {};
  return { person: row.person, stored: row.message ? stored(row) : undefined };
}

/**
 * Finds the recipient by user name and stores the message with one delivery per medium to the
 * recipient's address, in one statement: one round trip where a lookup and an insert took two.
 * A named statement (TenantDb.prepared): planned once per connection, not per message.
 */
export async function insertOneToUserName(db: TenantDb, recipients: RecipientsByUserName, r: ToUserName): Promise<ToUserNameResult> {
  const m = r.message;
  const { rows } = await db.prepared(
    'messages.insert-to-user',
    `with p as (?),
     want as (
       select x.medium, case x.medium when 'email' then p.email else p.mobile end as address
         from p, jsonb_array_elements_text(?::jsonb) with ordinality as x(medium, n) order by x.n),
     m as (
       insert into ?? (kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium)
       select ?, ?, p.id, ?, ?, ?::text[], ?, ? from p
        where not exists (select 1 from want where coalesce(want.address, '') = '')
       returning *),
     d as (
       insert into ?? (message_id, medium, address, priority, traceparent)
       select m.id, want.medium, want.address, ${PRIORITY}, ?::text from m, want
       returning *)
     select to_jsonb(p) as person, s.* from p left join lateral (${STORED} from m) s on true`,
    [
      recipients.named(db, r.userName),
      JSON.stringify(r.media),
      db.ref('messages'),
      m.kind,
      m.sender_id,
      m.title,
      m.text,
      m.cc,
      m.reply_to,
      m.send_medium,
      db.ref('message_deliveries'),
      r.traceparent ?? null,
    ],
  );
  return resultOf(rows[0]);
}

/**
 * The same for many messages of one tenant in one statement (one round trip, one commit, one
 * NOTIFY): the requests go as one jsonb array, each with its ordinal `i`, and come back one row per
 * request in that order, each answered as `insertOneToUserName` would. A message's id is drawn
 * from the sequence before its insert (CTE `ok`), so its deliveries and its answer are matched by
 * id, not by the order RETURNING happens to give. One named statement whatever the batch's size.
 * All or nothing: a row that fails fails the statement (the batcher then sends each on its own).
 */
export async function insertManyToUserName(db: TenantDb, recipients: RecipientsByUserName, rs: readonly ToUserName[]): Promise<ToUserNameResult[]> {
  const input = rs.map((r, i) => ({ i, user_name: r.userName, ...r.message, media: r.media, traceparent: r.traceparent ?? null }));
  const { rows } = await db.prepared(
    'messages.insert-many-to-user',
    `with x as materialized (
       select * from jsonb_to_recordset(?::jsonb) as x(i int, user_name text, kind text, sender_id int, title text, text text,
         cc text[], reply_to text, send_medium text, media text[], traceparent text)),
     p as materialized (?),
     want as (
       select x.i, w.medium, case w.medium when 'email' then p.email else p.mobile end as address
         from x join p on p.user_name = x.user_name, unnest(x.media) as w(medium)),
     ok as materialized (
       select x.*, p.id as recipient_id, nextval(?::regclass)::int as id
         from x join p on p.user_name = x.user_name
        where not exists (select 1 from want where want.i = x.i and coalesce(want.address, '') = '')),
     m as (
       insert into ?? (id, kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium)
       select id, kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium from ok order by i
       returning *),
     d as (
       insert into ?? (message_id, medium, address, priority, traceparent)
       select ok.id, want.medium, want.address, (case when ok.kind = 'password' then 1 else 0 end), ok.traceparent from ok join want on want.i = ok.i order by ok.i
       returning *),
     dd as (
       select d.message_id, jsonb_agg(to_jsonb(d) - 'updated_at' - 'relayed_at' - 'sent_at' - 'priority' - 'traceparent' order by d.medium) as deliveries,
              max(d.updated_at) as deliveries_updated_at
         from d group by d.message_id)
     select x.i, to_jsonb(p) as person, to_jsonb(m) - 'created_at' as message, m.created_at,
            coalesce(dd.deliveries, '[]') as deliveries, dd.deliveries_updated_at
       from x left join p on p.user_name = x.user_name
       left join ok on ok.i = x.i left join m on m.id = ok.id left join dd on dd.message_id = m.id
      order by x.i`,
    [
      JSON.stringify(input),
      recipients.namedIn(db, db.raw('select user_name from x')),
      `"${db.schema}".messages_id_seq`,
      db.ref('messages'),
      db.ref('message_deliveries'),
    ],
  );
  if (rows.length !== rs.length) throw new Error(`a batch of ${rs.length} messages answered ${rows.length} rows`);
  return rows.map((row: ResultRow & { i: number }, n: number) => {
    if (row.i !== n) throw new Error(`a batch of messages answered row ${row.i} in place ${n}`);
    return resultOf(row);
  });
}
