/**
 * What an integrator writes with a client generated from the OpenAPI document (README "Generating a
 * client"): types by openapi-typescript (`npm run openapi:client` writes them to
 * test/contract/generated/openapi.d.ts), calls by openapi-fetch. `npm test` type-checks this file
 * against freshly generated types, so a change of the contract that breaks integrators (a renamed
 * or removed answer field, a new required parameter) fails the build; integrator-example.test.ts
 * runs it against the API.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/openapi';
import type { ExampleResult, IntegratorExample } from './example-result';

export type Person = components['schemas']['Person'];
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/**
 * Logs in, lists persons, signs on to the first event with a free seat and reads the error
 * envelope of a sign-on that fails. `fetch`: the transport (a test binds it to a tenant's host).
 */
export const integratorExample: IntegratorExample = async (baseUrl, credentials, fetch): Promise<ExampleResult> => {
  const api = createClient<paths>({ baseUrl, fetch });

  // 1. Log in: the answer's session_id is the tg-visit cookie of every later call.
  const login = await api.POST('/api/login', { body: { ...credentials, login: 1 } });
  if (login.error) throw new Error(`login failed: ${login.error.errorcode} ${login.error.message}`);
  const session = login.data.login[0];
  api.use({
    onRequest({ request }) {
      request.headers.set('Cookie', `tg-visit=${session.session_id}`);
      return request;
    },
  });

  // 2. List persons (simple view: Person).
  const list = await api.GET('/api/persons', { params: { query: { limit: 5, view: 'simple' } } });
  if (list.error) throw new Error(`listing persons failed: ${list.error.errorcode} ${list.error.message}`);
  const persons = list.data.persons.map((p) => ({ user_name: p.user_name, name: [p.firstname, p.lastname].filter(Boolean).join(' ') }));

  // 3. Sign on to an event (the first upcoming one with a free seat).
  const events = await api.GET('/api/events', { params: { query: { limit: 50 } } });
  if (events.error) throw new Error(`listing events failed: ${events.error.message}`);
  const now = new Date().toISOString();
  const open = events.data.events.find((e) => !e.cancelled && !e.locked && e.startdate > now && (e.places === null || e.places > 0));
  let signedOn: ExampleResult['signedOn'] = null;
  if (open) {
    const signOn = await api.POST('/api/personevents/{event_id}', {
      params: { path: { event_id: open.event_id }, header: { 'Idempotency-Key': `example-sign-on-${open.event_id}` } },
      body: {},
    });
    if (signOn.error) throw new Error(`sign-on failed: ${signOn.error.errorcode} ${signOn.error.message}`);
    const personEvent = signOn.data.personevents[0];
    signedOn = { event_id: personEvent.event_id, title: open.title, status: personEvent.status };
  }

  // 4. Read the envelope's error: every failure is {valid: false, message, errorcode}.
  const missing = await api.POST('/api/personevents/{event_id}', { params: { path: { event_id: 2147483647 } }, body: {} });
  if (!missing.error) throw new Error('a sign-on to an event that does not exist succeeded');
  const failure: ErrorEnvelope = missing.error;
  return { userName: session.user_name, persons, signedOn, error: { status: missing.response.status, errorcode: failure.errorcode, message: failure.message } };
};
