import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { routeGroups, openApiExtra } from '../../src/routes';
import { buildOpenApiDocument } from '../../src/platform/openapi/openapi-document';

/**
 * Contract check run on every response the API tests receive through client():
 * a response that drifts from the OpenAPI document fails the test that got it.
 */
const document = buildOpenApiDocument(routeGroups, { version: 'test', description: '' }, openApiExtra);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const errorValidator = ajv.compile(document.components.schemas.ErrorEnvelope);

interface Operation {
  method: string;
  pattern: RegExp;
  /** The success answer's status (200, 201 for a creation) and media types. */
  status: number;
  /** Other success statuses with the same answer (202 of a route that may queue its work). */
  also: number[];
  types: string[];
  /** Its JSON schema's check; null when the answer is never JSON (bytes only). */
  validate: ValidateFunction | null;
  /** For fields=a,b: the same shape, but each object keeps only the named attributes. */
  validateProjected: ValidateFunction | null;
  /** Failures in a standard's own format (RFC 6749's {error, error_description}), by status. */
  failures: Map<number, ValidateFunction>;
}

/** fields= keeps a subset of each object's top-level attributes, so none of them stays required. */
function projected(schema: any): any {
  const copy = structuredClone(schema);
  // an object named in components (#/components/schemas/Person) is copied in before it is relaxed
  const own = (item: any): any =>
    item?.$ref ? structuredClone(document.components.schemas[item.$ref.split('/').pop() as keyof typeof document.components.schemas]) : item;
  const relax = (item: any): any => {
    item = own(item);
    if (!item || typeof item !== 'object') return item;
    delete item.required;
    for (const key of ['anyOf', 'oneOf'] as const) if (item[key]) item[key] = item[key].map(relax);
    return item;
  };
  // the envelope's own attributes are never projected: the arrays of objects are, in the operation's part of allOf
  for (const part of [copy, ...(copy.allOf ?? [])]) {
    for (const prop of Object.values<any>(part.properties ?? {})) if (prop?.type === 'array') prop.items = relax(prop.items);
  }
  return copy;
}
const operations: Operation[] = [];
// Shared sub-schemas are referenced as #/components/schemas/..., so they travel along.
const compile = (schema: any) => (schema ? ajv.compile({ ...schema, components: document.components }) : null);
for (const [path, methods] of Object.entries(document.paths)) {
  // any case, as express matches (the operator API's /Platform/Tenants too)
  const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');
  for (const [method, op] of Object.entries(methods as Record<string, any>)) {
    // a redirect route documents its 302 instead of a 2xx
    const successes = Object.entries(op.responses as Record<string, any>).filter(([code]) => code.startsWith('2') || code === '302');
    const [status, answer] = successes[0];
    const also = successes.slice(1).map(([code]) => Number(code));
    const schema = answer.content?.['application/json']?.schema;
    const types = Object.keys(answer.content ?? {});
    const failures = new Map<number, ValidateFunction>();
    for (const [code, failure] of Object.entries(op.responses as Record<string, any>)) {
      const own = failure.content?.['application/json']?.schema;
      if (!code.startsWith('2') && code !== '302' && own && !own.$ref) failures.set(Number(code), compile(own)!);
    }
    operations.push({
      method,
      pattern,
      status: Number(status),
      also,
      types,
      validate: compile(schema),
      validateProjected: compile(schema && projected(schema)),
      failures,
    });
  }
}

export function openApiDocument() {
  return document;
}

/** The paths the document describes: the tenant API and the operator API (the queue dashboard is Bull Board's own). */
const described = (path: string) => /^\/(api|platform|oauth)\//i.test(path) && path !== '/api/openapi.json' && !/^\/platform\/queues(\/|$)/i.test(path);

export function assertMatchesContract(method: string, url: string, res: { status: number; body: any; headers: any }): void {
  const path = url.split('?')[0];
  if (!described(path)) return;
  const op = operations.find((o) => o.method === method && o.pattern.test(path));
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('application/json')) {
    // A success that is no JSON (an archive) must be of a media type the document names.
    if (op && res.status === op.status && op.types.length > 0 && !op.types.some((t) => type.startsWith(t))) {
      throw new Error(`answer of ${method.toUpperCase()} ${path} is ${type || 'without Content-Type'}, the document says ${op.types.join(' or ')}`);
    }
    return;
  }
  if (res.body?.valid === false) {
    if (!errorValidator(res.body)) {
      throw new Error(`error response of ${method.toUpperCase()} ${path} drifts from ErrorEnvelope: ${ajv.errorsText(errorValidator.errors)}`);
    }
    return;
  }
  if (!op) return; // unknown paths answer the 404 envelope, checked above
  const failure = op.failures.get(res.status);
  if (failure) {
    if (!failure(res.body))
      throw new Error(`failure ${res.status} of ${method.toUpperCase()} ${path} drifts from the OpenAPI document: ${ajv.errorsText(failure.errors)}`);
    return;
  }
  if (res.status !== op.status && !op.also.includes(res.status))
    throw new Error(`${method.toUpperCase()} ${path} answered ${res.status}, the document says ${op.status}`);
  const validate = new URLSearchParams(url.split('?')[1] ?? '').has('fields') ? op.validateProjected : op.validate;
  if (!validate) throw new Error(`${method.toUpperCase()} ${path} answered JSON, the document says it never does`);
  if (!validate(res.body)) {
    throw new Error(`response of ${method.toUpperCase()} ${path} drifts from the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
  }
}
