import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

const coordinate = (min: number, max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .regex(/^-?\d+(\.\d+)?$/, 'must be a decimal number'),
    ])
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? null : v), schema.nullable()).optional();

const text = (max: number) => z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().trim().max(max, `must be at most ${max} characters`));

const digits = z
  .union([z.number().int('must be an integer'), z.string().trim().regex(/^\d+$/, 'must be a whole number')])
  .transform(Number)
  .pipe(z.number().min(0, 'must not be negative').max(2147483647, 'is out of range'));

/** location_data of POST and PUT /api/locations (the read side's names); unknown keys are a 420. */
export const LocationData = z
  .object({
    name: text(200).pipe(z.string().min(1, 'must not be empty')),
    address: optional(text(500)),
    capacity: optional(digits).describe('seats; empty = not registered'),
    latitude: optional(coordinate(-90, 90)).describe('WGS 84 degrees, -90..90'),
    longitude: optional(coordinate(-180, 180)).describe('WGS 84 degrees, -180..180'),
  })
  .strict();
export type LocationData = z.infer<typeof LocationData>;
export const LocationUpdateData = LocationData.partial().strict();
export type LocationUpdateData = z.infer<typeof LocationUpdateData>;

/** Locations created, changed and deleted (issue 35). */
@injectable()
export class LocationWrites {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async insert(data: LocationData): Promise<number> {
    const [row] = await this.db.table('locations').insert(data).returning('id');
    return row.id;
  }

  /** Changes the given fields; false when there is no such location. */
  async update(id: number, data: LocationUpdateData): Promise<boolean> {
    const n = await this.db
      .table('locations')
      .where({ id })
      .update({ ...data, updated_at: this.db.fn.now() });
    return n > 0;
  }

  /** The row locked for the change (capacity checks against its events wait for it). */
  async findForUpdate(id: number): Promise<{ id: number; name: string; capacity: number | null } | undefined> {
    return this.db.table('locations').where({ id }).forUpdate().first('id', 'name', 'capacity');
  }

  /** How many events name the location (cancelled and past ones too: they still show it). */
  async eventCount(id: number): Promise<number> {
    const [{ count }] = await this.db.table('events').where({ location_id: id }).count<{ count: string }[]>('* as count');
    return Number(count);
  }

  /** The not cancelled, not ended event at the location with the largest seat limit above `capacity`. */
  async largerEvent(id: number, capacity: number): Promise<{ id: number; title: string; max_participants: number } | undefined> {
    return this.db
      .table('events')
      .where({ location_id: id, cancelled: false })
      .where('ends_at', '>', this.db.fn.now())
      .where('max_participants', '>', capacity)
      .orderBy([{ column: 'max_participants', order: 'desc' }, { column: 'id' }])
      .first('id', 'title', 'max_participants');
  }

  async delete(id: number): Promise<void> {
    await this.db.table('locations').where({ id }).delete();
  }
}
