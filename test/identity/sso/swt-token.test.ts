import { describe, expect, it } from 'vitest';
import { computeSignature, secretKey, signSwt, splitToken, signatureMatches, verifySwt, SwtRejected } from '../../../src/identity/sso/swt-token';

const TEXT_KEY = secretKey('correct horse battery staple', 'text');
const SPEC_KEY = secretKey('N4QeKa3c062VBjnVK6fb+rnwURkcwGXh7EoNK34n0uM=', 'base64');

// The test vectors of issue 5; the third is the SWT 0.9.5.1 specification's own example.
const VECTORS = [
  { key: TEXT_KEY, signed: 'Issuer=snapper&ExpiresOn=4102444800&user_name=ola.nordmann', sig: 'mNXFLINgblOCxqL08OT8YaCbTQrIFydR2ZQ3wnkIpXA=' },
  { key: TEXT_KEY, signed: 'ExpiresOn=4102444800&external_person_id=E-1001', sig: 'ZbtAaZ7XxftRqKpsCEDYKAX5bXSLaN0XPjk4nZN2DjE=' },
  {
    key: SPEC_KEY,
    signed: 'Issuer=issuer.example.com&ExpiresOn=1262304000&com.example.group=gold&over18=true',
    sig: 'AT55+2jLQeuigpg0xm/vn7tjpSGXBUfFe0UXb0/9opE=',
  },
];

const rejection = (fn: () => unknown): SwtRejected => {
  try {
    fn();
  } catch (err) {
    if (err instanceof SwtRejected) return err;
    throw err;
  }
  throw new Error('expected the token to be refused');
};

describe('SWT signature (test vectors)', () => {
  it.each(VECTORS)('computes the published signature for $signed', ({ key, signed, sig }) => {
    expect(computeSignature(signed, key).toString('base64')).toBe(sig);
  });

  it.each(VECTORS)('accepts the signature URL-encoded (upper and lower case) and raw: $signed', ({ key, signed, sig }) => {
    const upper = encodeURIComponent(sig);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    for (const encoded of [upper, lower, sig]) {
      expect(signatureMatches(splitToken(`${signed}&HMACSHA256=${encoded}`), key)).toBe(true);
    }
  });

  it('verifies the first two vectors in full with their issuer and a time before 2100', () => {
    const checks = { secret: 'correct horse battery staple', encoding: 'text' as const, issuer: 'snapper', clockSkewSeconds: 60, nowSeconds: 1_700_000_000 };
    const params = verifySwt(`${VECTORS[0].signed}&HMACSHA256=${encodeURIComponent(VECTORS[0].sig)}`, checks);
    expect(params.get('user_name')).toBe('ola.nordmann');
    // the second names no Issuer: accepted where none is expected, refused where one is (issue 40)
    expect(verifySwt(`${VECTORS[1].signed}&HMACSHA256=${VECTORS[1].sig}`, { ...checks, issuer: null }).get('external_person_id')).toBe('E-1001');
    expect(rejection(() => verifySwt(`${VECTORS[1].signed}&HMACSHA256=${VECTORS[1].sig}`, checks)).check).toBe('issuer');
  });

  it("refuses the specification's example as expired, after its signature checked out", () => {
    const token = `${VECTORS[2].signed}&HMACSHA256=${encodeURIComponent(VECTORS[2].sig)}`;
    const err = rejection(() =>
      verifySwt(token, { secret: 'N4QeKa3c062VBjnVK6fb+rnwURkcwGXh7EoNK34n0uM=', encoding: 'base64', issuer: 'issuer.example.com', clockSkewSeconds: 60 }),
    );
    expect(err.check).toBe('expiry');
  });
});

describe('SWT refusals name the failed check', () => {
  const checks = { secret: 'correct horse battery staple', encoding: 'text' as const, issuer: 'snapper', clockSkewSeconds: 60, nowSeconds: 1_000_000 };
  const good = signSwt(
    [
      ['Issuer', 'snapper'],
      ['ExpiresOn', '1000100'],
      ['username', 'ola'],
    ],
    TEXT_KEY,
  );

  it('accepts a token built by signSwt', () => {
    expect(verifySwt(good, checks).get('username')).toBe('ola');
  });

  it('tampering with a value breaks the signature', () => {
    expect(rejection(() => verifySwt(good.replace('username=ola', 'username=kari'), checks)).check).toBe('signature');
  });

  it('HMACSHA256 must be last, present, base64 and 32 bytes', () => {
    expect(rejection(() => verifySwt(`${good}&x=1`, checks)).message).toContain('last parameter');
    expect(rejection(() => verifySwt('Issuer=snapper&username=ola', checks)).message).toContain('no HMACSHA256');
    expect(rejection(() => verifySwt('username=ola&HMACSHA256=not*base64', checks)).message).toContain('not base64');
    expect(rejection(() => verifySwt('username=ola&HMACSHA256=AAAA', checks)).message).toContain('32-byte');
  });

  it('a duplicated parameter is refused even when signed', () => {
    const dup = signSwt(
      [
        ['username', 'ola'],
        ['username', 'kari'],
      ],
      TEXT_KEY,
    );
    expect(rejection(() => verifySwt(dup, checks)).message).toContain('more than once');
  });

  it('with an expected Issuer, a token without one is refused by the issuer check (issue 40)', () => {
    const none = signSwt(
      [
        ['ExpiresOn', '1000100'],
        ['username', 'ola'],
      ],
      TEXT_KEY,
    );
    const err = rejection(() => verifySwt(none, checks));
    expect([err.check, err.message]).toEqual(['issuer', expect.stringContaining('no Issuer')]);
    expect(verifySwt(none, { ...checks, issuer: null }).get('username')).toBe('ola');
  });

  it('a foreign Issuer, a past ExpiresOn beyond the clock skew, or a non-numeric ExpiresOn are refused', () => {
    const foreign = signSwt(
      [
        ['Issuer', 'mallory'],
        ['username', 'ola'],
      ],
      TEXT_KEY,
    );
    expect(rejection(() => verifySwt(foreign, checks)).check).toBe('issuer');
    const expired = signSwt(
      [
        ['Issuer', 'snapper'],
        ['ExpiresOn', String(1_000_000 - 61)],
        ['username', 'ola'],
      ],
      TEXT_KEY,
    );
    expect(rejection(() => verifySwt(expired, checks)).check).toBe('expiry');
    const withinSkew = signSwt(
      [
        ['Issuer', 'snapper'],
        ['ExpiresOn', String(1_000_000 - 59)],
        ['username', 'ola'],
      ],
      TEXT_KEY,
    );
    expect(verifySwt(withinSkew, checks).get('username')).toBe('ola');
    const garbled = signSwt(
      [
        ['Issuer', 'snapper'],
        ['ExpiresOn', 'tomorrow'],
        ['username', 'ola'],
      ],
      TEXT_KEY,
    );
    expect(rejection(() => verifySwt(garbled, checks)).check).toBe('expiry');
  });

  it('no message contains the secret', () => {
    const messages = [`${good}&x=1`, good.replace('ola', 'kari'), signSwt([['Issuer', 'x']], TEXT_KEY)].map(
      (tok) => rejection(() => verifySwt(tok, checks)).message,
    );
    for (const m of messages) expect(m).not.toContain('horse');
  });

  it('a base64 secret that is not base64 is reported as a configuration problem', () => {
    expect(rejection(() => secretKey('not base64!', 'base64')).check).toBe('secret');
  });
});
