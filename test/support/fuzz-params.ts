import type { RouteDefinition } from '../../src/platform/http/define-route';

/** What the fuzzer needs to know of a parameter: its bracket path and a plausible value. */
export interface FuzzParam {
  path: string[];
  kind: 'int' | 'list' | 'bool' | 'enum' | 'object' | 'string' | 'other';
  options?: string[];
  inPath: boolean;
  required: boolean;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'readonly', 'catch', 'nonoptional', 'prefault']);

/** The schema a parameter is checked against, past optional/default/preprocess wrappers. */
function core(schema: any): any {
  for (let i = 0; i < 20; i++) {
    const def = schema?._zod?.def;
    if (!def) return schema;
    if (WRAPPERS.has(def.type)) schema = def.innerType;
    else if (def.type === 'lazy') schema = def.getter();
    // z.preprocess(fn, s) is pipe(transform, s): the real shape is on the out side.
    else if (def.type === 'pipe') schema = def.in?._zod?.def?.type === 'transform' ? def.out : def.in;
    else return schema;
  }
  return schema;
}

function kindOf(schema: any): Pick<FuzzParam, 'kind' | 'options'> {
  const def = core(schema)?._zod?.def;
  switch (def?.type) {
    case 'union': {
      const types = def.options.map((o: any) => core(o)?._zod?.def?.type);
      if (types.includes('boolean')) return { kind: 'bool' };
      if (types.includes('number')) return { kind: 'int' };
      return { kind: 'string' };
    }
    case 'number':
      return { kind: 'int' };
    case 'boolean':
      return { kind: 'bool' };
    case 'array':
      return { kind: 'list' };
    case 'enum':
      return { kind: 'enum', options: Object.values(def.entries).map(String) };
    case 'object':
      return { kind: 'object' };
    case 'string':
      return { kind: 'string' };
    default:
      return { kind: 'other' };
  }
}

/** Every parameter of a route, and one level into object parameters (person_data[email]). */
export function routeParams(route: RouteDefinition): FuzzParam[] {
  const inputDef = core(route.input)?._zod?.def;
  const shape: Record<string, unknown> = inputDef?.type === 'object' ? inputDef.shape : {};
  const inPath = new Set([...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]));
  const out: FuzzParam[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const k = kindOf(schema);
    out.push({ path: [name], ...k, inPath: inPath.has(name), required: (schema as any)?._zod?.optin !== 'optional' });
    const def = core(schema)?._zod?.def;
    if (k.kind === 'object' && def?.shape) {
      for (const [sub, s] of Object.entries(def.shape as Record<string, unknown>))
        out.push({ path: [name, sub], ...kindOf(s), inPath: false, required: false });
    }
  }
  return out;
}

/** A value that passes the parameter's own check often enough to reach the service. */
export function plausible(p: FuzzParam): unknown {
  const name = p.path[p.path.length - 1];
  if (name === 'user_name') return 'ola';
  if (name === 'config_item_id') return 'cors.origins';
  if (name === 'fields') return undefined;
  switch (p.kind) {
    case 'int':
      return '1';
    case 'list':
      return '1';
    case 'bool':
      return '1';
    case 'enum':
      return p.options?.[0];
    case 'object':
      return undefined;
    default:
      return /date/.test(name) ? '2024-01-01' : 'x';
  }
}

/** Required and path parameters filled with plausible values, so a bad one reaches deeper code. */
export function baseline(params: FuzzParam[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of params) {
    if (p.path.length !== 1 || !(p.required || p.inPath)) continue;
    const v = plausible(p);
    if (v !== undefined) out[p.path[0]] = v;
  }
  return out;
}
