/**
 * The module rule of src/ (issue 17), run by `npm test` before the tests:
 *   npx depcruise src --config .dependency-cruiser.cjs
 * Modules, lowest first: people, catalogue, courses, messaging, identity, tenancy. A module may
 * import the kernel (src/platform) and the index.ts of a module below it, nothing else of another
 * module; the kernel imports no module. So no cycle between modules can arise.
 * Above the modules, src/routes (the HTTP surface, issue 34) imports the kernel and any module's
 * index.ts; nothing but the composition root imports it, and only its index.ts.
 */
const MODULES = ['people', 'catalogue', 'courses', 'messaging', 'identity', 'tenancy'];
const above = (m) => MODULES.slice(MODULES.indexOf(m) + 1);
/**
 * Issue 34: a data module imports no other data module; what spans modules is a flow (src/flows).
 * The modules still listed here have not been moved over yet: for them the old layering (a module
 * imports the faces of modules below it) still holds. The list only shrinks; empty, the rule is whole.
 */
const NOT_YET_FLAT = [];
/**
 * Single files of moved-over modules that still import another module, each for a caller that
 * cannot reach a flow yet. Only shrinks, like NOT_YET_FLAT. (tenancy's tenant-operator.ts left it
 * when the /platform routes moved to src/routes/tenancy and call OperatorPasswordsFlow.)
 */
const NOT_YET_FLAT_FILES = [];
const M = MODULES.join('|');

module.exports = {
  forbidden: [
    {
      name: 'kernel-imports-no-module',
      comment: 'src/platform is the kernel: modules plug into it through the container (tokens), it never imports them.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: ['^src/(people|catalogue|courses|messaging|identity|tenancy|cli|routes|flows)/', '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'no-deep-import-across-modules',
      comment: "Another module is reached through its index.ts (its public face) only.",
      severity: 'error',
      from: { path: '^src/(people|catalogue|courses|messaging|identity|tenancy)/' },
      to: { path: '^src/(people|catalogue|courses|messaging|identity|tenancy)/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'composition-root-imports-faces',
      comment: 'app.ts, features.ts, container.ts and the CLI wire modules through their index.ts, and the routes through src/routes/index.ts.',
      severity: 'error',
      from: { path: ['^src/[^/]+\\.ts$', '^src/cli/'] },
      to: { path: '^src/(people|catalogue|courses|messaging|identity|tenancy|routes|flows)/', pathNot: '^src/[^/]+/index\\.ts$' },
    },
    {
      name: 'data-module-imports-no-data-module',
      comment: 'Data modules own their tables and import only the kernel; a use case that spans modules is a flow in src/flows that imports their faces.',
      severity: 'error',
      from: {
        path: `^src/(${M})/`,
        pathNot: [...(NOT_YET_FLAT.length ? [`^src/(${NOT_YET_FLAT.join('|')})/`] : []), ...NOT_YET_FLAT_FILES.map((f) => `^${f.replace(/\./g, '\\.')}$`)],
      },
      to: { path: `^src/(${M})/`, pathNot: '^src/$1/' },
    },
    {
      name: 'modules-import-no-flows',
      comment: 'src/flows sits above the data modules: a module never imports a flow.',
      severity: 'error',
      from: { path: `^src/(${M})/` },
      to: { path: '^src/flows/' },
    },
    {
      name: 'flows-import-faces',
      comment: 'A flow reaches a module through its index.ts only (go to definition follows every call), and never the routes, the composition root or the CLI.',
      severity: 'error',
      from: { path: '^src/flows/' },
      to: { path: [`^src/(${M})/`, '^src/(routes|cli)/', '^src/[^/]+\\.ts$'], pathNot: `^src/(${M})/index\\.ts$` },
    },
    {
      name: 'modules-import-no-routes',
      comment: 'src/routes sits above every module: a module never imports it (its routes import its index.ts).',
      severity: 'error',
      from: { path: '^src/(people|catalogue|courses|messaging|identity|tenancy)/' },
      to: { path: '^src/routes/' },
    },
    {
      name: 'routes-import-faces',
      comment: 'A route file reaches a module through its index.ts only, and never the composition root or the CLI.',
      severity: 'error',
      from: { path: '^src/routes/' },
      to: { path: ['^src/(people|catalogue|courses|messaging|identity|tenancy)/', '^src/cli/', '^src/[^/]+\\.ts$'], pathNot: '^src/(people|catalogue|courses|messaging|identity|tenancy)/index\\.ts$' },
    },
    ...MODULES.filter((m) => above(m).length).map((m) => ({
      name: `module-layers-${m}`,
      comment: `${m} sits below ${above(m).join(', ')}: it plugs into them through ports, never imports them (no module cycle).`,
      severity: 'error',
      from: { path: `^src/${m}/` },
      to: { path: `^src/(${above(m).join('|')})/` },
    })),
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
