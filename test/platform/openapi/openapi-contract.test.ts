import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeGroups, openApiExtra } from '../../../src/routes';
import { apiDocument, apiDocumentText } from '../../../src/platform/openapi/docs-routes';
import { buildOpenApiDocument } from '../../../src/platform/openapi/openapi-document';
import { version } from '../../../package.json';

/** What an integrator's generator reads (issue 41): names, required, headers, answers, tags. */
const doc = apiDocument(routeGroups, version, openApiExtra) as any;
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, path, op })),
);
const defined = operations.filter(({ path }) => /^\/(api|platform)\//.test(path) && !path.startsWith('/api/openapi'));
const tenantOps = defined.filter(({ path }) => path.startsWith('/api/'));
const envelopeOf = (op: any) =>
  Object.entries(op.responses as Record<string, any>)
    .filter(([code]) => code.startsWith('2'))
    .map(([, r]) => r.content?.['application/json']?.schema)
    .filter((schema) => schema?.allOf);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('the OpenAPI document as a contract to generate from', () => {
  it('names every entity and view as a component, referenced by $ref: no Shared<n>, no inline objects of a route', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Person',
      'PersonFull',
      'Organisation',
      'OrganisationFull',
      'Competence',
      'Event',
      'Participant',
      'PersonEvent',
      'PersonCompetence',
      'Location',
      'Role',
      'Message',
      'Webhook',
      'Envelope',
      'ErrorEnvelope',
    ]) {
      expect(names).toContain(name);
    }
    expect(names.filter((n) => /^Shared\d*$|schema\d+$/.test(n))).toEqual([]);
    // every route that declares its objects answers them as named components (one, or the views to choose from)
    const inline = defined.flatMap(({ at, op }) =>
      envelopeOf(op).flatMap((schema: any) =>
        Object.entries(schema.allOf[1].properties as Record<string, any>)
          .filter(([, prop]) => (prop.type === 'array' && prop.items.type !== 'object') || prop.items?.properties)
          .filter(([, prop]) => !prop.items.$ref && !(prop.items.anyOf ?? []).every((branch: any) => branch.$ref))
          .map(([name]) => `${at} ${name}`),
      ),
    );
    expect(inline).toEqual([]);
    expect(doc.paths['/api/persons'].get.responses['200'].content['application/json'].schema).toEqual({
      allOf: [
        ref('Envelope'),
        { type: 'object', required: ['persons'], properties: { persons: { type: 'array', items: { anyOf: [ref('PersonFull'), ref('Person')] } } } },
      ],
    });
    expect(doc.paths['/api/events/{event_id}'].get.responses['200'].content['application/json'].schema.allOf[1].properties.events.items).toEqual({
      anyOf: [ref('EventFull'), ref('Event')],
    });
    expect(doc.paths['/api/competences/{competence_id}'].get.responses['200'].content['application/json'].schema.allOf[1].properties.competences.items).toEqual(
      {
        anyOf: [ref('CompetenceFull'), ref('Competence')],
      },
    );
    // what only the full view shows is required there, and absent from the simple view's schema
    expect(doc.components.schemas.EventFull.required).toEqual(expect.arrayContaining(['description', 'prerequisites', 'cancelled_at']));
    expect(Object.keys(doc.components.schemas.Event.properties)).not.toContain('description');
    expect(doc.components.schemas.CompetenceFull.required).toEqual(expect.arrayContaining(['description', 'categories', 'updated_at']));
    // the simple view's fields are always there; the full view's too
    expect(doc.components.schemas.Person.required).toEqual([
      'person_id',
      'user_name',
      'firstname',
      'lastname',
      'jobtitle',
      'email',
      'mobile',
      'organisation_id',
      'employee_code',
    ]);
    expect(doc.components.schemas.PersonFull.required).toEqual(
      expect.arrayContaining(['person_id', 'roles', 'manages', 'organisation', 'deactivated', 'updated_at']),
    );
    expect(doc.components.schemas.Envelope.required).toEqual(['valid', 'message']);
  });

  it('marks the resource arrays and the request bodies with a required parameter required', () => {
    for (const { at, op } of defined) {
      for (const schema of envelopeOf(op)) {
        const [resource, array] = Object.entries(schema.allOf[1].properties as Record<string, any>)[0];
        // routes that declare their objects (named); one without may answer the envelope alone (POST /api/forgot_password)
        if (array.items.$ref || array.items.anyOf) expect(schema.allOf[1].required, at).toContain(resource);
      }
    }
    expect(doc.paths['/api/login'].post.requestBody.required).toBe(true);
    expect(doc.paths['/api/persons'].post.requestBody.required).toBe(true);
    // every parameter optional: the body may be left out
    expect(doc.paths['/api/personevents/{event_id}'].post.requestBody.required).toBeUndefined();
  });

  it('declares the RateLimit headers on every tenant answer, Idempotent-Replayed where a key applies, 429 and 503 with the ErrorEnvelope', () => {
    expect(Object.keys(doc.components.headers)).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed']);
    const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
    for (const { at, op } of tenantOps) {
      for (const [code, answer] of Object.entries(op.responses as Record<string, any>)) {
        expect(answer.headers?.RateLimit, `${at} ${code}`).toEqual(header('RateLimit'));
        expect(answer.headers?.['RateLimit-Policy'], `${at} ${code}`).toEqual(header('RateLimit-Policy'));
      }
      expect(op.responses['429']?.content['application/json'].schema, at).toEqual(ref('ErrorEnvelope'));
      expect(op.responses['429'].headers['Retry-After'], at).toEqual(header('Retry-After'));
      const takesKey = op.parameters.some((p: any) => p.name === 'Idempotency-Key');
      for (const [code, answer] of Object.entries(op.responses as Record<string, any>)) {
        if (code.startsWith('2')) expect(answer.headers['Idempotent-Replayed'], `${at} ${code}`).toEqual(takesKey ? header('Idempotent-Replayed') : undefined);
      }
    }
    for (const { at, op } of defined) expect(op.responses['503']?.content['application/json'].schema, at).toEqual(ref('ErrorEnvelope'));
    // the hand-written ones too (SCIM answers its own error format)
    for (const { at, op } of operations) {
      expect(op.responses['503']?.headers['Retry-After'], at).toEqual(header('Retry-After'));
      if (op.responses['429']) expect(op.responses['429'].headers['Retry-After'], at).toEqual(header('Retry-After'));
    }
    // the operator API has no rate limit
    expect(doc.paths['/platform/tenants'].get.responses['429']).toBeUndefined();
    expect(doc.paths['/platform/tenants'].get.responses['200'].headers).toBeUndefined();
  });

  it('gives every operation a described tag, and the document a license and a contact', () => {
    const described = new Map((doc.tags as { name: string; description: string }[]).map((tag) => [tag.name, tag.description]));
    for (const { at, op } of operations) {
      expect(op.tags?.length, at).toBe(1);
      expect(described.get(op.tags[0]), at).toMatch(/\w/);
    }
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(doc.info.contact.name).toMatch(/\w/);
  });

  it('is the same bytes each time it is built (npm run openapi), with its schemas in name order', () => {
    const text = apiDocumentText(routeGroups, version, openApiExtra);
    expect(apiDocumentText(routeGroups, version, openApiExtra)).toBe(text);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(doc)));
    const named = Object.keys(doc.components.schemas).filter((n) => !['Envelope', 'ErrorEnvelope'].includes(n) && !(n in (openApiExtra.schemas ?? {})));
    expect(named).toEqual([...named].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('refuses a schema zod would have to name itself, and two schemas under one name', () => {
    const Tree: z.ZodType = z.object({ children: z.array(z.lazy(() => Tree)) });
    const route = (output: z.ZodType, path = '/x') => ({
      method: 'get' as const,
      path,
      access: routeGroups[0].routes[0].access,
      resource: 'x',
      summary: 'x',
      input: z.object({}),
      output,
      handler: async () => ({ items: [] }),
    });
    const build = (...routes: ReturnType<typeof route>[]) =>
      buildOpenApiDocument([{ base: '/api', tenant: true, routes }], { version: 't', description: '' }, { tags: { x: 'x' } });
    expect(() => build(route(Tree))).toThrow(/\.meta\(\{ id \}\)/);
    const one = z.object({ a: z.string() }).meta({ id: 'TestTwice' });
    const other = z.object({ b: z.string() }).meta({ id: 'TestTwice' });
    expect(() => build(route(one, '/one'), route(other, '/other'))).toThrow(/two different schemas are named TestTwice/);
    const named: z.ZodType = z.object({ children: z.array(z.lazy(() => named)) }).meta({ id: 'TestTree' });
    expect((build(route(named)).components.schemas as Record<string, unknown>).TestTree).toBeDefined();
  });
});
