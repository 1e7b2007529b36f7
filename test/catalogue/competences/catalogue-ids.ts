import { expect } from 'vitest';

type Api = { get(url: string): PromiseLike<{ status: number; body: any }> };

/** Competence ids by title (children included), read through the catalogue API. */
export async function competenceIdsByTitle(api: Api): Promise<Record<string, number>> {
  const res = await api.get('/api/competences?mode=all&limit=100');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const out: Record<string, number> = {};
  const walk = (list: any[]) => {
    for (const c of list) {
      out[c.title] = c.competence_id;
      walk(c.children ?? []);
    }
  };
  walk(res.body.competences);
  return out;
}

export const titles = (list: { title: string }[]) => list.map((x) => x.title).sort();
