import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Issue 34: a DI token is kept only where there really are several implementations (GDPR data
 * holders, auth schemes, jobs, workers) or where the kernel must not know a module. A token that a
 * module declares and exactly one other place implements is a single-implementation port: the
 * caller should import the implementation (from a flow above both) so "go to definition" works.
 */

const ROOT = join(__dirname, '../..');
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : name.endsWith('.ts') ? [p] : [];
  });
}

/** The top folder of src/ a file is in (a module, flows, routes, platform), or 'root'. */
const area = (file: string) => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0] : 'root';
};

interface Token {
  name: string;
  declaredIn: string;
  registrations: string[];
}

export function tokenRegistrations(sources: { file: string; text: string }[]): Token[] {
  const tokens = new Map<string, Token>();
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/export const ([A-Z][A-Z0-9_]*)\s*:\s*InjectionToken<[^=]*=\s*Symbol\(/g)) {
      tokens.set(m[1], { name: m[1], declaredIn: area(file), registrations: [] });
    }
  }
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/\.register(?:Singleton)?\(\s*([A-Z][A-Z0-9_]*)\s*,/g)) {
      tokens.get(m[1])?.registrations.push(area(file));
    }
  }
  return [...tokens.values()];
}

/** Declared in a data module, implemented exactly once, from somewhere else. */
export const singleImplementationPorts = (tokens: Token[]) =>
  tokens
    .filter((t) => t.declaredIn !== 'platform' && t.registrations.length === 1 && t.registrations[0] !== t.declaredIn)
    .map((t) => `${t.name} (declared in ${t.declaredIn}, implemented in ${t.registrations[0]})`)
    .sort();

describe('DI tokens', () => {
  const sources = files(SRC).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('no module declares a token that exactly one other module implements (a port with one implementation)', () => {
    expect(singleImplementationPorts(tokenRegistrations(sources))).toEqual([]);
  });

  it("the rule sees such a port, and lets a multi-registration and a module's own token pass", () => {
    const at = (path: string, text: string) => ({ file: join(SRC, path), text });
    const tokens = tokenRegistrations([
      at('people/ports.ts', "export const NOTIFIER: InjectionToken<N> = Symbol('N');\nexport const DATA: InjectionToken<D> = Symbol('D');"),
      at('courses/store.ts', "export const STORE: InjectionToken<S> = Symbol('S');"),
      at('messaging/index.ts', 'c.register(NOTIFIER, { useClass: X });\nc.register(DATA, { useClass: Y });'),
      at('courses/index.ts', 'c.register(DATA, { useClass: Z });\nc.register(STORE, { useClass: W });'),
    ]);
    expect(singleImplementationPorts(tokens)).toEqual(['NOTIFIER (declared in people, implemented in messaging)']);
  });
});
