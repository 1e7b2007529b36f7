import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * zod schemas as JSON Schema (draft 2020-12, as OpenAPI 3.1 takes them). Sub-schemas that zod
 * emits as $defs (recursive ones) are hoisted into components.schemas under Shared<n>: one
 * collection per document, begun by startCollecting and read by collected.
 */
const hoisted: Record<string, JsonSchema> = {};
let hoistCounter = 0;

export function startCollecting(): void {
  for (const k of Object.keys(hoisted)) delete hoisted[k];
  hoistCounter = 0;
}

export function collected(): Record<string, JsonSchema> {
  return { ...hoisted };
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

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const js = withoutZodFormats(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }));
  delete js.$schema;
  const defs = js.$defs as Record<string, JsonSchema> | undefined;
  if (!defs) return js;
  delete js.$defs;
  // $refs are relative to the document root once embedded, so they must point at components.
  const renamed = new Map(Object.keys(defs).map((k) => [k, `Shared${++hoistCounter}`]));
  const rewrite = (text: string) =>
    text.replace(/"#\/\$defs\/([^"]+)"/g, (_m, name: string) => `"#/components/schemas/${renamed.get(name)}"`);
  for (const [k, v] of Object.entries(defs)) hoisted[renamed.get(k)!] = JSON.parse(rewrite(JSON.stringify(v)));
  return JSON.parse(rewrite(JSON.stringify(js)));
}
