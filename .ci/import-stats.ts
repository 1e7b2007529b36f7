/**
 * Counts the imports of src/ that cross top-level folders (modules) and the cycles between them.
 *   npx tsx .ci/import-stats.ts            summary
 *   npx tsx .ci/import-stats.ts --edges    also every folder -> folder edge with its count
 *   npx tsx .ci/import-stats.ts --deep     also every cross-folder import that bypasses the target's index.ts
 *   npx tsx .ci/import-stats.ts --map F    count the folders named in the JSON object F ({folder: group}) as their group
 * A "folder" is the first path segment under src/ (src/people/persons/x.ts -> people); files
 * directly under src/ (app.ts, main.ts ...) are the composition root and count as no folder.
 */
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '..');
const src = join(root, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return null;
}

// --map FILE: a JSON object {folder: group} that counts several folders as one (e.g. to measure an old tree by new modules)
const mapAt = process.argv.indexOf('--map');
const groups: Record<string, string> = mapAt > 0 ? JSON.parse(readFileSync(process.argv[mapAt + 1], 'utf8')) : {};
const folderOf = (file: string): string | null => {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? (groups[parts[0]] ?? parts[0]) : null;
};

interface Import {
  from: string;
  to: string;
}
const imports: Import[] = [];
const files = walk(src);
for (const file of files) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  for (const ref of info.importedFiles) {
    const to = resolveImport(file, ref.fileName);
    if (to && to.startsWith(src + sep)) imports.push({ from: file, to });
  }
}

const cross = imports.filter((i) => {
  const a = folderOf(i.from);
  const b = folderOf(i.to);
  return a !== null && b !== null && a !== b;
});
const deep = cross.filter((i) => relative(join(src, folderOf(i.to)!), i.to) !== 'index.ts');

// folder graph and its strongly connected components (Tarjan)
const edges = new Map<string, Map<string, number>>();
for (const i of cross) {
  const a = folderOf(i.from)!;
  const b = folderOf(i.to)!;
  const m = edges.get(a) ?? new Map<string, number>();
  m.set(b, (m.get(b) ?? 0) + 1);
  edges.set(a, m);
}
const nodes = [...new Set([...files.map(folderOf).filter((f): f is string => f !== null)])].sort();
let counter = 0;
const index = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const components: string[][] = [];
function connect(v: string): void {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v)!, low.get(w)!));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
  }
  if (low.get(v) === index.get(v)) {
    const c: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) components.push(c.sort());
  }
}
for (const n of nodes) if (!index.has(n)) connect(n);
const mutual = [...edges].flatMap(([a, m]) => [...m.keys()].filter((b) => a < b && edges.get(b)?.has(a)).map((b) => `${a} <-> ${b}`));

const rel = (f: string) => relative(root, f);
console.log(`folders under src/: ${nodes.length} (${nodes.join(', ')})`);
console.log(`files: ${files.length}; relative imports inside src/: ${imports.length}`);
console.log(`imports that cross folders: ${cross.length}; of them past the target folder's index.ts: ${deep.length}`);
const intoModules = cross.filter((i) => folderOf(i.to) !== 'platform');
console.log(
  `of the crossing imports, those not into platform/ (the kernel): ${intoModules.length}; of them past the target's index.ts: ${intoModules.filter((i) => deep.includes(i)).length}`,
);
console.log(`imports from platform/ into another folder (the kernel importing a module): ${cross.filter((i) => folderOf(i.from) === 'platform').length}`);
console.log(`folder pairs importing each other: ${mutual.length}${mutual.length ? ` (${mutual.join(', ')})` : ''}`);
console.log(
  `cycles between folders (strongly connected groups): ${components.length}${components.length ? ` (${components.map((c) => c.join(' + ')).join('; ')})` : ''}`,
);
if (process.argv.includes('--edges')) {
  for (const [a, m] of [...edges].sort()) for (const [b, n] of [...m].sort()) console.log(`  ${a} -> ${b}: ${n}`);
}
if (process.argv.includes('--deep')) for (const i of deep) console.log(`  ${rel(i.from)} -> ${rel(i.to)}`);
