import { describe, expect, it } from 'vitest';
import express from 'express';
import cookieParser from 'cookie-parser';
import request from 'supertest';
import { installLazyCookies, requestCookie } from '../../src/platform/http/lazy-cookies';
import { client, useAcmeApp } from '../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../support/login';

/** What a route sees of the cookies: req.cookies, req.signedCookies and one cookie read alone. */
function echoApp(lazy: boolean) {
  const app = express();
  if (lazy) installLazyCookies(app.request);
  else app.use(cookieParser());
  app.get('/', (req, res) => {
    const one = lazy ? requestCookie(req, 'tg-visit') : req.cookies['tg-visit'];
    res.json({ one: one ?? null, cookies: { ...req.cookies }, signed: { ...req.signedCookies } });
  });
  app.get('/assign', (req, res) => {
    req.cookies = { replaced: 'yes' };
    res.json({ cookies: req.cookies, one: (lazy ? requestCookie(req, 'replaced') : req.cookies.replaced) ?? null });
  });
  return app;
}

const HEADERS = [
  undefined,
  '',
  'tg-visit=abc123',
  'a=1; tg-visit=abc123; b=2',
  ' tg-visit = spaced ; other=x',
  'tg-visit=%E2%9C%93%20encoded',
  'tg-visit=j:"json-string"',
  'prefs=j:{"a":[1,2]}; broken=j:{nope',
  'tg-visit=first; tg-visit=second',
  'tg-visit="quoted"',
  'noequals; tg-visit=after',
  'empty=; tg-visit=',
];

describe('lazy cookies (req.cookies parsed on first read)', () => {
  const lazy = echoApp(true);
  const eager = echoApp(false);

  it.each(HEADERS.map((h) => [h ?? '(none)', h]))('reads %s as cookie-parser does', async (_name, header) => {
    const get = (app: express.Express) => {
      const r = request(app).get('/');
      return header === undefined ? r : r.set('Cookie', header);
    };
    const [a, b] = await Promise.all([get(lazy), get(eager)]);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
  });

  it('keeps req.cookies assignable, and a cookie read after the assignment sees it', async () => {
    const [a, b] = await Promise.all([request(lazy).get('/assign').set('Cookie', 'x=1'), request(eager).get('/assign').set('Cookie', 'x=1')]);
    expect(a.body).toEqual({ cookies: { replaced: 'yes' }, one: 'yes' });
    expect(a.body).toEqual(b.body);
  });
});

describe('the session cookie among others', () => {
  const bed = useAcmeApp();

  it('logs in with tg-visit whatever other cookies come along, and not without it', async () => {
    const session = await loginCookie(bed.t, bed.acme.host, 'admin', ACME_PASSWORDS.admin);
    const withOthers = `theme=dark; ${session}; prefs=j:{"a":1}`;
    const me = await client(bed.t, bed.acme.host, withOthers).get('/api/person');
    expect(me.status).toBe(200);
    expect(me.body.person[0].user_name).toBe('admin');
    const anonymous = await client(bed.t, bed.acme.host, 'theme=dark; tg-visit=unknown-session').get('/api/person');
    expect(anonymous.status).toBe(401);
  });
});
