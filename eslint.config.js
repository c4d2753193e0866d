import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The layers of src/, top to bottom (docs/architecture.md): an import points down or sideways
// within its layer, never up, and never in a circle.
//   entry    main.ts, cli/, server/          start, stop, commands
//   app      app.ts, services.ts             builds the services and the HTTP app around them
//   http     http/ (all but http/schemas/)   plugins, error rendering, the request gate
//   modules  modules/<feature>/              routes, services, repositories of one feature
//   base     db/, outbound/, shared/, http/schemas/ and the root files (errors, config, ...)
// Inside a module only its HTTP-facing files (routes, pages and what renders or parses for them)
// use the HTTP layer; services and repositories do not.
const ENTRY = './src/{main.ts,cli/**,server/**}';
const APP = './src/{app,services}.ts';
const HTTP = './src/http/{!(schemas)/**,*.ts}';
const MODULES = './src/modules/**';
const BASE = ['src/db/**', 'src/outbound/**', 'src/shared/**', 'src/http/schemas/**', 'src/*.ts'];

/** The layers a file may not import, for the files that `files` matches and `ignores` leaves. */
const layerRule = (files, ignores, forbidden, message) => ({
  files,
  ignores,
  rules: {
    'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [{ target: './src/**', from: forbidden, message }] }],
  },
});

// The feature modules, bottom to top (docs/architecture.md): a module imports only modules before
// it in this list, types included, so the graph of modules runs one way. What several share and
// none owns lives below them all, in src/shared/ (and src/http/schemas/ for schemas).
const MODULE_ORDER = [
  'venues',
  'audit',
  'idempotency',
  'webhooks',
  'reference',
  'media',
  'settings',
  'availability',
  'menu',
  'merch',
  'translations',
  'orders',
  'staff',
  'guest',
  'docs',
  'console',
  'guest-page',
  'health',
];
/** Inside a module only its HTTP-facing files (routes, pages and what renders or parses for them) use the HTTP layer. */
const HTTP_FACING = '{*.routes,*.page,page.render,media-body,representation}.ts';

/**
 * One module's import rules: the layers above it (and, outside its HTTP-facing files, the HTTP
 * layer), and every module after it in MODULE_ORDER.
 */
function moduleRules(name, index) {
  const later = MODULE_ORDER.slice(index + 1);
  const order = {
    target: './src/**',
    from: later.length > 0 ? later.map((m) => `./src/modules/${m}/**`) : ['./src/modules/__none__/**'],
    message: `a module imports only modules below it (MODULE_ORDER in eslint.config.js); ${name} is below ${later.join(', ')}`,
  };
  // A module below is reached through its surface, its index.ts, never through its other files.
  const surfaces = MODULE_ORDER.slice(0, index).map((m) => ({
    target: './src/**',
    from: `./src/modules/${m}`,
    except: ['./index.ts'],
    message: `another module is reached through its surface: import from '../${m}/index.js'`,
  }));
  const rules = (forbidden, message) => ({
    'import-x/no-restricted-paths': [
      'error',
      { basePath: import.meta.dirname, zones: [{ target: './src/**', from: forbidden, message }, order, ...surfaces] },
    ],
  });
  return [
    {
      files: [`src/modules/${name}/**/*.ts`],
      rules: rules([ENTRY, APP, HTTP], 'services and repositories do not use the HTTP layer: what they share with it lives in src/shared/'),
    },
    {
      files: [`src/modules/${name}/**/${HTTP_FACING}`],
      rules: rules([ENTRY, APP], 'app.ts and services.ts wire everything: only main, cli and server import them'),
    },
  ];
}

// A module reaches another module through its service (or its schemas and views), never through
// its repository: the SQL of a table has one owner.
const foreignRepository = {
  group: ['../*/*.repository.js'],
  message: "another module's repository is its own: go through that module's service",
};

/** src/shared/ files written free of Node and of the DOM, for the server and the browser scripts alike. */
const BROWSER_SAFE_SHARED = 'src/shared/{money,modifier-rules,pricing}.ts';

/** Code the browser scripts may run from src/: written free of Node and of the DOM for both sides. */
const BROWSER_SAFE = [
  '!**/src/shared/money.js',
  '!**/src/shared/modifier-rules.js',
  '!**/src/shared/pricing.js',
  '!**/src/modules/guest-page/shared/*.js',
];

/** The imports a browser surface's files may not make: the other surface, and server code as values. */
const webRule = (files, otherSurface, message) => ({
  files: [files],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: otherSurface, message },
          {
            group: ['**/src/**/*.js', ...BROWSER_SAFE],
            allowTypeImports: true,
            message: "a browser script takes the server's types only (import type); code it runs is written for both sides in src/shared/",
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'data/', '.tmp/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  // Later blocks replace the rule of earlier ones for the files they match: from the top layer down.
  layerRule(
    ['src/**/*.ts'],
    ['src/main.ts', 'src/cli/**', 'src/server/**'],
    [ENTRY],
    'main, cli and server are the top layer: nothing imports them',
  ),
  layerRule(
    ['src/**/*.ts'],
    ['src/main.ts', 'src/cli/**', 'src/server/**', 'src/app.ts', 'src/services.ts'],
    [ENTRY, APP],
    'app.ts and services.ts wire everything: only main, cli and server import them',
  ),
  ...MODULE_ORDER.flatMap(moduleRules),
  layerRule(
    BASE,
    ['src/main.ts', 'src/app.ts', 'src/services.ts'],
    [ENTRY, APP, HTTP, MODULES],
    'the base layer (db, outbound, shared, http/schemas, root files) imports no module and no HTTP code',
  ),
  {
    files: ['src/modules/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [foreignRepository] }] },
  },
  // Written for the browser too (the guest page and the console run them): they import nothing of
  // Node, of the DOM or of the rest of the server, only each other.
  {
    files: [BROWSER_SAFE_SHARED],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!\\./(money|modifier-rules|pricing)\\.js$)', message: 'runs in the browser too: it imports only its peers' },
          ],
        },
      ],
    },
  },
  // The browser scripts: what the guest page and the console share lives in web/shared/, never in
  // one of them. Of the server they run only the code written for both sides (src/shared/'s money,
  // modifier rules and pricing; the guest page's shared words and views); its schemas they import as
  // types only, so nothing else of the server enters a bundle.
  webRule('web/guest/**/*.ts', ['../console/*'], 'the console is its own page: what both use goes in web/shared/'),
  webRule('web/console/**/*.ts', ['../guest/*'], 'the guest page is its own page: what both use goes in web/shared/'),
  webRule('web/shared/**/*.ts', ['../guest/*', '../console/*'], 'web/shared/ serves both pages and imports neither'),
);
