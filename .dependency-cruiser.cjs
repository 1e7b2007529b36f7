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

module.exports = {
  forbidden: [
    {
      name: 'kernel-imports-no-module',
      comment: 'src/platform is the kernel: modules plug into it through the container (tokens), it never imports them.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: ['^src/(people|catalogue|courses|messaging|identity|tenancy|cli|routes)/', '^src/[^/]+\\.ts$'] },
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
      to: { path: '^src/(people|catalogue|courses|messaging|identity|tenancy|routes)/', pathNot: '^src/[^/]+/index\\.ts$' },
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
