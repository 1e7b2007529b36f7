import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';

export interface LocationFilters {
  term?: string;
  /** Only locations with no (non-cancelled) event overlapping from..to. */
  available?: { from: Date; to: Date };
  minimumCapacity?: number;
  box?: { swLat: number; swLng: number; neLat: number; neLng: number };
}

/** Same attributes in simple and full view. */
export const LocationView = z
  .object({
    location_id: z.number().int(),
    name: z.string(),
    address: z.string().nullable(),
    capacity: z.number().int().nullable().describe('number of seats; null = not registered'),
    latitude: z.number().nullable().describe('WGS 84 degrees'),
    longitude: z.number().nullable().describe('WGS 84 degrees'),
  })
  .meta({ id: 'Location' });

const present = (r: any) => ({
  location_id: r.id,
  name: r.name,
  address: r.address,
  capacity: r.capacity,
  latitude: r.latitude,
  longitude: r.longitude,
});

@injectable()
export class LocationsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async get(id: number): Promise<Record<string, unknown>> {
    const row = await this.db.table('locations').where({ id }).first();
    if (!row) throw ApiError.notFound(`location ${id}`);
    return present(row);
  }

  async list(f: LocationFilters, paging: Paging): Promise<Record<string, unknown>[]> {
    const { db } = this;
    const q = db.table('locations as l');
    if (f.term) {
      const like = `%${f.term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      q.where((w) => void w.whereILike('l.name', like).orWhereILike('l.address', like));
    }
    if (f.minimumCapacity !== undefined) q.where('l.capacity', '>=', f.minimumCapacity);
    if (f.box) {
      q.whereBetween('l.latitude', [f.box.swLat, f.box.neLat]);
      // A box whose west edge is east of its east edge crosses the 180th meridian.
      if (f.box.swLng <= f.box.neLng) q.whereBetween('l.longitude', [f.box.swLng, f.box.neLng]);
      else q.where((w) => void w.where('l.longitude', '>=', f.box!.swLng).orWhere('l.longitude', '<=', f.box!.neLng));
    }
    if (f.available) {
      q.whereNotExists(
        db
          .table('events as e')
          .whereRaw('e.location_id = l.id')
          .where('e.cancelled', false)
          .where('e.starts_at', '<', f.available.to)
          .where('e.ends_at', '>', f.available.from),
      );
    }
    const rows = await q
      .orderBy([{ column: 'l.name' }, { column: 'l.id' }])
      .limit(paging.limit)
      .offset(paging.offset)
      .select('l.*');
    return rows.map(present);
  }
}
