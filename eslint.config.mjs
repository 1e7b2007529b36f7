// ESLint (issue 41): typescript-eslint's type-aware recommended rules over the TypeScript of src, workers,
// migrations, seeds and test (one TypeScript program from tsconfig.json through the project service), eslint's
// recommended rules over the admin console's browser modules and the config files; formatting is Prettier's
// (eslint-config-prettier turns off every rule that would fight it). `npm run lint` runs it with --max-warnings 0.
// A rule turned off or changed here says why.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // .ci holds the CI's own scripts (not in tsconfig.json); the rest is generated or installed
    ignores: ['node_modules/', 'dist/', 'coverage/', '.data/', '.test-results/', 'bench-results/', '.exp/', '.ci/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  {
    // tests too: they are in the same TypeScript program (no extra build), and a floating or misused promise in a
    // test is how a failure goes unseen
    files: ['**/*.ts', '**/*.mts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Off: the query results of knex are `any` (its untyped table rows), and they flow through every repository,
      // export and test body (supertest's `res.body` is `any` too): on main these five rules and no-explicit-any
      // reported 6,229 of the 6,461 problems, almost all on rows read straight from knex. The way to turn them on
      // is to type knex's tables (its `Tables` interface) or the repositories' return types, not a cast per line;
      // until then they would only teach `as any`. The answers' shapes are checked by the OpenAPI contract test.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Off: an `async` method without `await` is how this code implements a Promise-returning interface (access
      // checks, stores, fakes of repositories): `async` turns a throw into a rejection, which callers rely on;
      // dropping it for `Promise.resolve(...)` would change that behaviour.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names are the house way to say "unused on purpose" (a parameter an interface requires, a rest
      // sibling that drops a property)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // the tenant admin console: plain ES modules the browser loads as they are (no build step, no types)
    files: ['src/routes/tenancy/admin/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  prettier,
);
