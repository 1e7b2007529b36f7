import { createHmac } from 'node:crypto';

/** Seeded generators of tenant-import/1 documents for the benchmark (same seed, same data). */

export function prng(seed: number): () => number {
  // mulberry32
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BENCH_SECRET = 'bench-swt-shared-secret-0123456789';
export const BENCH_PASSWORD = 'Bench-Pass-1';

/** An SWT for a user of the bench tenants (they trust BENCH_SECRET), valid an hour. */
export function swtToken(userName: string): string {
  // within the default api.oauth.max_token_lifetime_seconds (a day): a run takes minutes
  const body = `Issuer=bench&ExpiresOn=${Math.floor(Date.now() / 1000) + 3600}&username=${userName}`;
  const sig = createHmac('sha256', Buffer.from(BENCH_SECRET, 'utf8')).update(body).digest('base64');
  return `${body}&HMACSHA256=${encodeURIComponent(sig)}`;
}
/**
 * The per-caller API rate limit stays on (its Redis call is part of every request's cost) but so
 * high that one bench user sending thousands of requests a second is never refused.
 */
export const BENCH_CONFIG = { 'api.oauth.secret': BENCH_SECRET, 'api.rate_limit.per_minute': 1_000_000 };

/** One small tenant: an organisation, a role, a competence, a person who can log in. */
export function smallTenant(index: number, passwordHash: string) {
  const slug = `bench${String(index).padStart(4, '0')}`;
  return {
    format: 'tenant-import/1',
    tenant: { slug, name: `Bench tenant ${index}`, hosts: [`${slug}.bench.localhost`] },
    config: { ...BENCH_CONFIG, 'mail.from': `Bench ${index} <mail@${slug}.example>` },
    organisations: [{ ref: 'root', name: `Org ${index}` }],
    roles: [{ ref: 'worker', name: 'Worker', meta_type: 'role' }],
    competences: [{ ref: 'c1', title: 'Safety', type: 'course' }],
    requirements: [{ role: 'worker', competence: 'c1', mandatory: true }],
    persons: [
      {
        user_name: 'user',
        password_hash: passwordHash,
        firstname: 'Bench',
        lastname: `User ${index}`,
        email: `user@${slug}.example`,
        organisation: 'root',
        roles: ['worker'],
        superuser: true,
      },
    ],
  };
}

/**
 * The large tenant: 10,000 persons over a 200-unit organisation tree, 500 competences
 * with requirements, 2,000 events, 100,000 person competences.
 */
export function largeTenant(passwordHash: string, seed = 42) {
  const rnd = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  // 200 units: 1 root, 9 divisions, 190 departments spread under the divisions.
  const root = { ref: 'o0', name: 'Large Corp', children: [] as any[] };
  const divisions = Array.from({ length: 9 }, (_, i) => ({ ref: `o${i + 1}`, name: `Division ${i + 1}`, children: [] as any[] }));
  root.children.push(...divisions);
  const units: string[] = ['o0', ...divisions.map((d) => d.ref)];
  for (let i = 10; i < 200; i++) {
    const ref = `o${i}`;
    divisions[i % 9].children.push({ ref, name: `Department ${i}` });
    units.push(ref);
  }
  const roles = Array.from({ length: 40 }, (_, i) => ({ ref: `r${i}`, name: `Role ${i}`, meta_type: i % 10 === 0 ? 'position' : 'role' }));
  const types = ['course', 'ecourse', 'formal', 'skill', 'signature'];
  const competences = Array.from({ length: 500 }, (_, i) => ({
    ref: `c${i}`,
    title: `Competence ${i}`,
    type: types[i % types.length],
    ...(i % 5 === 0 ? { valid_months: 24 } : {}),
  }));
  const requirements: any[] = [];
  for (const r of roles) {
    const chosen = new Set<number>();
    while (chosen.size < 12) chosen.add(Math.floor(rnd() * 500));
    for (const c of chosen) requirements.push({ role: r.ref, competence: `c${c}`, mandatory: rnd() < 0.8 });
  }
  const persons = Array.from({ length: 10_000 }, (_, i) => {
    const personRoles = new Set<string>();
    const n = i === 0 ? 5 : 1 + Math.floor(rnd() * 3);
    while (personRoles.size < n) personRoles.add(pick(roles).ref);
    return {
      user_name: `p${i}`,
      password_hash: passwordHash,
      firstname: `First${i}`,
      lastname: `Last${i}`,
      email: `p${i}@large.example`,
      mobile: `+47${String(40000000 + i)}`,
      organisation: i === 0 ? 'o0' : pick(units),
      roles: [...personRoles],
      superuser: i === 0,
    };
  });
  const courseRefs = competences.filter((c) => c.type === 'course').map((c) => c.ref);
  const events = Array.from({ length: 2_000 }, (_, i) => {
    const start = new Date(Date.UTC(2027, 0, 1) + Math.floor(rnd() * 3 * 365) * 86_400_000 - 365 * 86_400_000);
    return {
      ref: `e${i}`,
      competence: pick(courseRefs),
      title: `Event ${i}`,
      start: start.toISOString(),
      end: new Date(start.getTime() + 7 * 3_600_000).toISOString(),
      max_participants: i < 50 ? 2 : 10 + Math.floor(rnd() * 30),
    };
  });
  const personCompetences: any[] = [];
  const seen = new Set<string>();
  while (personCompetences.length < 100_000) {
    const p = Math.floor(rnd() * 10_000);
    const c = Math.floor(rnd() * 500);
    const key = `${p}:${c}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const year = 2020 + Math.floor(rnd() * 6);
    personCompetences.push({ person: `p${p}`, competence: `c${c}`, date: `${year}-0${1 + Math.floor(rnd() * 9)}-15` });
  }
  return {
    format: 'tenant-import/1',
    tenant: { slug: 'large', name: 'Large Corp', hosts: ['large.bench.localhost'] },
    config: { ...BENCH_CONFIG, 'mail.from': 'Large <mail@large.example>' },
    organisations: [root],
    roles,
    competences,
    requirements,
    persons,
    events,
    person_competences: personCompetences,
  };
}
