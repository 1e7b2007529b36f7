import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { allRoutes } from '../../src/routes';
import { buildOpenApiDocument } from '../../src/platform/openapi/openapi-document';

/**
 * Contract check run on every response the API tests receive through client():
 * a response that drifts from the OpenAPI document fails the test that got it.
 */
const document = buildOpenApiDocument(allRoutes, { version: 'test', description: '' });
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const errorValidator = ajv.compile(document.components.schemas.ErrorEnvelope);

interface Operation {
  method: string;
  pattern: RegExp;
  validate: ValidateFunction;
  /** For fields=a,b: the same shape, but each object keeps only the named attributes. */
  validateProjected: ValidateFunction;
}

/** fields= keeps a subset of each object's top-level attributes, so none of them stays required. */
function projected(schema: any): any {
  const copy = structuredClone(schema);
  const relax = (item: any) => {
    if (!item || typeof item !== 'object') return;
    delete item.required;
    for (const branch of [...(item.anyOf ?? []), ...(item.oneOf ?? [])]) relax(branch);
  };
  for (const prop of Object.values(copy.properties ?? {}) as any[]) if (prop?.type === 'array') relax(prop.items);
  return copy;
}
const operations: Operation[] = [];
for (const [path, methods] of Object.entries(document.paths)) {
  if (!path.startsWith('/api/')) continue; // the operator API is described, not contract-checked
  const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
  for (const [method, op] of Object.entries(methods as Record<string, any>)) {
    const schema = op.responses['200'].content['application/json'].schema;
    // Shared sub-schemas are referenced as #/components/schemas/..., so they travel along.
    operations.push({
      method,
      pattern,
      validate: ajv.compile({ ...schema, components: document.components }),
      validateProjected: ajv.compile({ ...projected(schema), components: document.components }),
    });
  }
}

export function openApiDocument() {
  return document;
}

export function assertMatchesContract(method: string, url: string, res: { status: number; body: any; headers: any }): void {
  if (!String(res.headers['content-type'] ?? '').includes('application/json')) return;
  const path = url.split('?')[0];
  if (!path.startsWith('/api/') || path === '/api/openapi.json') return;
  if (res.body?.valid === false) {
    if (!errorValidator(res.body)) {
      throw new Error(`error response of ${method.toUpperCase()} ${path} drifts from ErrorEnvelope: ${ajv.errorsText(errorValidator.errors)}`);
    }
    return;
  }
  const op = operations.find((o) => o.method === method && o.pattern.test(path));
  if (!op) return; // unknown paths answer the 404 envelope, checked above
  const validate = new URLSearchParams(url.split('?')[1] ?? '').has('fields') ? op.validateProjected : op.validate;
  if (!validate(res.body)) {
    throw new Error(`response of ${method.toUpperCase()} ${path} drifts from the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
  }
}
