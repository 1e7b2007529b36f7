/**
 * The layer rules of src/ (issues 17 and 34), run by `npm test` before the tests:
 *   npx depcruise src --config .dependency-cruiser.cjs
 * Layers, lowest first; an import only points down:
 *   1. the kernel, src/platform: imports nothing of the product;
 *   2. data modules (people, catalogue, courses, messaging, identity, tenancy): each imports only the
 *      kernel, never another module; their face is their index.ts;
 *   3. flows, src/flows: use cases that span modules; import modules' faces (and other flows);
 *   4. routes, src/routes: the HTTP surface; import flows, modules' faces and the kernel;
 *   the composition root (src/*.ts, src/cli) wires them through their index.ts files.
 * A module never imports another, so no cycle between modules can arise.
 */
const M = ['people', 'catalogue', 'courses', 'messaging', 'identity', 'tenancy'].join('|');
const FACE = `^src/(${M})/index\\.ts$`;

module.exports = {
  forbidden: [
    {
      name: 'kernel-imports-no-module',
      comment:
        'src/platform is the kernel: the product plugs into it through extension points (tokens with several implementations), it never imports the product.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: [`^src/(${M}|flows|routes|cli)/`, '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'data-module-imports-no-data-module',
      comment: 'A data module owns its tables and imports only the kernel; a use case that spans modules is a flow in src/flows that imports their faces.',
      severity: 'error',
      from: { path: `^src/(${M})/` },
      to: { path: `^src/(${M})/`, pathNot: '^src/$1/' },
    },
    {
      name: 'modules-import-no-flows-nor-routes',
      comment: 'src/flows and src/routes sit above the data modules: a module never imports them.',
      severity: 'error',
      from: { path: `^src/(${M})/` },
      to: { path: ['^src/(flows|routes|cli)/', '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'flows-import-faces',
      comment:
        'A flow reaches a module through its index.ts only (go to definition follows every call), and never the routes, the composition root or the CLI.',
      severity: 'error',
      from: { path: '^src/flows/' },
      to: { path: [`^src/(${M})/`, '^src/(routes|cli)/', '^src/[^/]+\\.ts$'], pathNot: FACE },
    },
    {
      name: 'routes-import-faces',
      comment: 'A route file reaches a module through its index.ts only (flows directly), and never the composition root or the CLI.',
      severity: 'error',
      from: { path: '^src/routes/' },
      to: { path: [`^src/(${M})/`, '^src/cli/', '^src/[^/]+\\.ts$'], pathNot: FACE },
    },
    {
      name: 'composition-root-imports-faces',
      comment: 'app.ts, features.ts, container.ts and the CLI wire modules, flows and routes through their index.ts.',
      severity: 'error',
      from: { path: ['^src/[^/]+\\.ts$', '^src/cli/'] },
      to: { path: `^src/(${M}|routes|flows)/`, pathNot: '^src/[^/]+/index\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'No file cycle in src/ (type-only imports excepted: they vanish at run time).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.(js|html|css)$' },
  },
};
