import http from 'node:http';
import fc from 'fast-check';

/** Text sent as is in a query, form body or path (already percent-encoded, possibly badly). */
export class Raw {
  constructor(readonly text: string) {}
}

const nest = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** Values every parameter meets once in the sweep; the random phase draws from these and more. */
export const CANONICAL: unknown[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\u202eevil\u202c',
  '😀',
  'e\u0301',
  '\ufeff\uffff',
  '\u0001\u001f\u007f',
  '1e400',
  'NaN',
  'Infinity',
  '-0x1',
  '1.5',
  '-1',
  '0',
  '-0',
  '2147483648',
  '-2147483649',
  '3000000000',
  '99999999999',
  '9007199254740993',
  '100000000000000000000',
  '1'.repeat(400),
  'true',
  'null',
  '[]',
  '{"a":',
  "' or 1=1--",
  '%',
  '\\',
  '2024-13-45',
  '2024-02-30',
  '0000-00-00',
  '+275760-09-13',
  '2024-01-01T25:00',
  'x'.repeat(5000),
  ['1', '2'],
  [],
  [[]],
  [{}],
  Array.from({ length: 1001 }, () => '1'),
  ['\u0000'],
  { a: '1' },
  { 0: '1' },
  nest(6, '1'),
  nest(40, '1'),
  true,
  false,
  null,
  1.5,
  1e308,
  -1,
  2 ** 31,
  Number.MAX_SAFE_INTEGER + 2,
  new Raw('%zz'),
  new Raw('%E0%A4%A'),
  new Raw('%C0%80'),
  new Raw('%ED%A0%80'),
  new Raw('%00'),
  new Raw('a[b][c][d][e][f][g]'),
];

/** The part of CANONICAL each parameter meets in the sweep (the random phase draws from all). */
export const SWEEP: unknown[] = [
  'a\u0000b',
  '\ud800',
  '',
  '1e400',
  '-0x1',
  '3000000000',
  '100000000000000000000',
  '2024-02-30',
  'x'.repeat(5000),
  ['1', '2'],
  { a: '1' },
  nest(40, '1'),
  null,
  1.5,
  new Raw('%zz'),
  new Raw('a[b][c][d][e][f][g]'),
];

export const PATH_BAD: string[] = [
  '%00',
  'a%00b',
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%80',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%20',
  '..',
  '%2F',
  '-1',
  '0',
  '1.5',
  '3000000000',
  '99999999999999999999',
  '1e400',
  'NaN',
  'x'.repeat(3000),
  '%E2%80%AE',
  '%27%20or%201%3D1--',
  '%5B%5D',
];

const scalarText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.array(fc.integer({ min: 0, max: 31 }), { maxLength: 8 }).map((cs) => String.fromCharCode(...cs)),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.integer().map(String),
  fc.double().map(String),
  fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())),
  fc.constantFrom('simple', 'full', 'all', 'future', 'finished', 'on', 'off', 'signed_on', 'waitlist', 'ola', 'admin', 'kari'),
);

/** A bad (or odd) value of any shape. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...CANONICAL) },
  { weight: 3, arbitrary: scalarText },
  { weight: 1, arbitrary: fc.oneof(fc.double(), fc.integer(), fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.array(scalarText, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), scalarText, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map((d) => nest(d, 'x')) },
);

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Percent-encodes UTF-8 bytes; a lone surrogate becomes U+FFFD as a real client would send it. */
export function enc(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 128 && UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Bracket-form pairs of a value, the way qs and browsers send them. */
export function formPairs(name: string, value: unknown, out: string[] = []): string[] {
  if (value instanceof Raw) out.push(`${enc(name)}=${value.text}`);
  else if (Array.isArray(value)) value.forEach((v, i) => formPairs(v !== null && typeof v === 'object' ? `${name}[${i}]` : name, v, out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) formPairs(`${name}[${k}]`, v, out);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a primitive by now (arrays and objects are taken above)
  else out.push(`${enc(name)}=${enc(value === null || value === undefined ? '' : String(value))}`);
  return out;
}

export const toJson = (input: Record<string, unknown>) => JSON.stringify(input, (_k, v) => (v instanceof Raw ? v.text : v));

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

export function sendRaw(port: number, req: { method: string; path: string; headers: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, agent, method: req.method, path: req.path, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

// Stack frames, SQL and file paths: none of them may reach a client.
const LEAKS = [
  /\n\s*at /,
  /\bat \S+ \(.*:\d+:\d+\)/,
  /\bselect\s/i,
  /\binsert\s/i,
  /violates/i,
  /syntax error/i,
  /\brelation\s/i,
  /\/(src|work|node_modules|tmp|home)\//,
  /\.ts:\d+/,
];

/** Why a response breaks the promise (no 5xx, the envelope on every error, nothing leaked), or null. */
export function problemWith(res: RawResponse, sentStrings: string[]): string | null {
  // 501 is the deliberate "not implemented" answer (organisation_owner_only, files on registrations).
  if (res.status >= 500 && !(res.status === 501 && res.text.includes('"errorcode":501'))) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return null;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `status ${res.status} without a JSON envelope: ${res.text.slice(0, 200)}`;
  }
  if (body?.valid !== false || typeof body.errorcode !== 'number' || typeof body.message !== 'string')
    return `status ${res.status}, not the envelope: ${res.text.slice(0, 200)}`;
  // A message may echo what was sent; only what the server added counts.
  let message: string = body.message;
  for (const s of sentStrings) if (s.length > 2) message = message.split(s).join('');
  const leak = LEAKS.find((re) => re.test(message));
  return leak ? `message leaks ${leak}: ${body.message.slice(0, 300)}` : null;
}

/** Every string inside a value (to tell echoed input from leaked internals). */
export function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (v instanceof Raw) out.push(v.text, decodeURIComponentSafe(v.text));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out);
    }
  return out;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
