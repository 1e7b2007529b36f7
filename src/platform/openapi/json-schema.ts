import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * zod schemas as JSON Schema (draft 2020-12, as OpenAPI 3.1 takes them). A schema named at its
 * source with `.meta({ id: 'Person' })` becomes components.schemas.Person and is referenced by
 * $ref wherever it is used; a recursive schema (z.lazy) must be named so too (zod would call it
 * __schema0): the document builder refuses it otherwise.
 *
 * The same schema reads differently as a request (input: coercions, defaults) and as an answer
 * (output): when the two differ, the request's is named `<id>Input`. Refs are written as
 * placeholders until the whole document is known (resolveSchemaRefs), so the choice does not
 * depend on the order the routes are visited in. One collection per document, begun by
 * startCollecting.
 */
const named = new Map<string, { input?: string; output?: string }>();

export function startCollecting(): void {
  named.clear();
}

const PLACEHOLDER = '#/x-zod-schemas/';
const placeholder = (io: 'input' | 'output', id: string) => `${PLACEHOLDER}${io}/${id}`;

/** The component name of `id` as read for `io`: the plain id unless its input and output forms differ. */
function componentName(io: 'input' | 'output', id: string): string {
  const forms = named.get(id)!;
  return io === 'input' && forms.output !== undefined && forms.input !== forms.output ? `${id}Input` : id;
}

/** The named schemas collected so far, sorted by name, with their refs resolved. */
export function collected(): Record<string, JsonSchema> {
  const entries: [string, string][] = [];
  for (const [id, forms] of named) {
    if (forms.output !== undefined) entries.push([id, forms.output]);
    if (forms.input !== undefined && forms.input !== forms.output) entries.push([componentName('input', id), forms.input]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [name, text] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[name] = JSON.parse(text);
  return resolveSchemaRefs(out);
}

/** Replaces the placeholders toJsonSchema wrote with refs to components.schemas. */
export function resolveSchemaRefs<T>(value: T): T {
  const text = JSON.stringify(value).replace(/"#\/x-zod-schemas\/(input|output)\/([^"]+)"/g, (_m, io: 'input' | 'output', id: string) =>
    JSON.stringify(`#/components/schemas/${componentName(io, id)}`),
  );
  return JSON.parse(text);
}

/** String checks zod writes as a `format` JSON Schema does not know (startsWith: "starts_with"); their `pattern` says it already. */
const ZOD_ONLY_FORMATS = new Set(['starts_with', 'ends_with', 'includes', 'lowercase', 'uppercase']);

function withoutZodFormats(js: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(js), (_key, value) => {
    if (!value || typeof value !== 'object' || !ZOD_ONLY_FORMATS.has(value.format) || typeof value.pattern !== 'string') return value;
    const { format: _format, ...rest } = value;
    return rest;
  });
}

const UNNAMED_MESSAGE = 'a schema is used recursively without a name: give it .meta({ id }) where it is defined';

/** zod's names for schemas it had to extract without an id (a recursive z.lazy). */
const UNNAMED = /^_*schema\d+$/;

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const js = withoutZodFormats(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }));
  delete js.$schema;
  // a recursive schema at the root refers to itself as "#", which in the document would be the document
  if (JSON.stringify(js).includes('"$ref":"#"')) throw new Error(`${UNNAMED_MESSAGE} (${JSON.stringify(js).slice(0, 200)})`);
  const defs = js.$defs as Record<string, JsonSchema> | undefined;
  if (!defs) return js;
  delete js.$defs;
  // $refs are relative to the document root once embedded, so they must point at components.
  const rewrite = (text: string) => text.replace(/"#\/\$defs\/([^"]+)"/g, (_m, id: string) => JSON.stringify(placeholder(io, id)));
  for (const [id, def] of Object.entries(defs)) {
    if (UNNAMED.test(id)) {
      throw new Error(`${UNNAMED_MESSAGE} (${JSON.stringify(def).slice(0, 200)})`);
    }
    const text = rewrite(JSON.stringify(def));
    const forms = named.get(id) ?? {};
    if (forms[io] !== undefined && forms[io] !== text) {
      throw new Error(`two different schemas are named ${id} (.meta({ id: '${id}' })): give each its own name`);
    }
    named.set(id, { ...forms, [io]: text });
  }
  return JSON.parse(rewrite(JSON.stringify(js)));
}
