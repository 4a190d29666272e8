// ESLint as the JupyterLab extension template configures it (eslint.config.mjs, ESLint 9 flat
// config, typescript-eslint, @jupyter/eslint-plugin, Prettier last), widened to this
// repository: besides the extension (src/) it holds a Node service (sidecar/src), its command
// line (bin/), build scripts, benchmarks and tests, and its plain JavaScript is hand-written
// source run by Node or the browser as it is, so it is linted too (the template ignores **/*.js
// because there all JavaScript is generated).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import prettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import jupyterPlugin from '@jupyter/eslint-plugin';

// The JupyterLab-specific rules (plugin ids, commands, translation, signals, settings schema)
// are about the extension, not the sidecar (no JupyterLab code) nor the tests' fixtures (fake
// commands and plugins whose labels no person reads).
const jupyterRecommended = jupyterPlugin.configs.recommended
  .filter(config => !config.files.some(pattern => pattern.includes('.test.')))
  .map(config => ({
    ...config,
    files: config.files.map(pattern =>
      pattern.includes('schema/') ? 'schema/*.json' : `src/${pattern}`
    )
  }));

// Shared by the TypeScript and the JavaScript files.
const commonRules = {
  // Dropping keys by destructuring into a rest object is how this code omits fields from an
  // object (TypeScript's noUnusedLocals agrees).
  '@typescript-eslint/no-unused-vars': [
    'warn',
    { args: 'none', ignoreRestSiblings: true }
  ],
  eqeqeq: 'error'
};

export default defineConfig([
  {
    ignores: [
      'node_modules',
      'dist',
      'coverage',
      '**/*.d.ts',
      '.venv',
      '.venv-lab',
      // Build outputs and generated files (`npm run generate`; `npm run generate:check` compares
      // them byte for byte).
      'lib',
      'sidecar/dist',
      'sidecar/src/core/generated',
      'src/generated',
      'jupyterlab_project_startup',
      'test/system/e2e/*/build',
      'test-artifacts',
      '.project-startup'
    ]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: {
      jupyter: jupyterPlugin
    }
  },
  jupyterRecommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      globals: {
        ...globals.browser,
        ...globals.es2015,
        ...globals.node
      },
      parserOptions: {
        // Three TypeScript projects: tsconfig.json (src/), sidecar/tsconfig.json and
        // test/tsconfig.json; the project service picks each file's nearest one.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        sourceType: 'module'
      }
    },
    rules: {
      // The template turns this off; this project's guide says "no any", so it stays on
      // (typescript-eslint's recommended setting), and the few deliberate uses in tests say so
      // where they are.
      // '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-use-before-define': 'off',
      // The template's '@typescript-eslint/quotes' is gone from typescript-eslint 8 (its
      // formatting rules moved out): ESLint's own `quotes`, with the same options, is set at
      // the end of this file for every file.
      ...commonRules
    }
  },
  {
    // The extension follows JupyterLab's naming: interfaces start with I (IStartupModel). The
    // sidecar and the tests do not: their types mirror the service's schemas (Manifest,
    // StartupProjection, generated as sidecar/schemas/api-types.d.ts) and plain Node code.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: {
            regex: '^I[A-Z]',
            match: true
          }
        }
      ],
      // The guide: no console.log in the extension (console.warn/error stay for what only a
      // developer can act on).
      'no-console': ['error', { allow: ['warn', 'error'] }]
    }
  },
  {
    // The sidecar loads what only some commands or platforms need when first needed, with a
    // typed `require` (`() => require('./client') as typeof import('./client')`), so that
    // `serve` starts without it; an import statement would load it at start.
    files: ['sidecar/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-require-imports': 'off'
    }
  },
  // The sidecar's floors (docs/architecture.md): core/ (pure decisions) < observe/ (the I/O that
  // gathers evidence) < the shared floor (config/, service/, files/) < http/ <
  // cli/. Each folder may import only from its own floor and those below; nothing imports cli/.
  ...sidecarLayers(),
  {
    // Plain JavaScript run by Node as it is (bin/, scripts/, bench/, jest and build configs):
    // CommonJS, so require() is the import.
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        ...globals.node
      }
    },
    rules: {
      ...commonRules,
      '@typescript-eslint/no-require-imports': 'off',
      // A module's top-level `const crypto = require('node:crypto')` is local to the module
      // (CommonJS wraps it in a function), not a second declaration of Node's global crypto.
      'no-redeclare': ['error', { builtinGlobals: false }]
    }
  },
  {
    // Browser scripts: the sidecar's setup and API pages, and the e2e host apps (bundled by
    // webpack as ES modules).
    files: ['sidecar/static/*.js', 'style/*.js', 'test/system/e2e/*/{bootstrap,index,federated}.js'],
    languageOptions: {
      globals: {
        ...globals.browser
      }
    }
  },
  {
    files: ['style/*.js', 'test/system/e2e/*/{bootstrap,index,federated}.js'],
    languageOptions: {
      sourceType: 'module'
    }
  },
  prettierRecommended,
  {
    // eslint-config-prettier (in prettierRecommended, last as in the template) turns these
    // template rules off again; with these options they cannot fight Prettier (its "special
    // rules"), so the template's choices apply. Run Prettier before `eslint --fix` (npm run lint
    // does) so that prefer-arrow-callback and prettier/prettier never fix one line in one pass.
    rules: {
      curly: ['error', 'all'],
      quotes: [
        'error',
        'single',
        { avoidEscape: true, allowTemplateLiterals: false }
      ],
      'prefer-arrow-callback': 'error'
    }
  }
]);

/** One `no-restricted-imports` rule per sidecar floor: what each may not import. */
function sidecarLayers() {
  const cli = { group: ['**/cli/*'], message: 'Nothing imports the command line (cli/).' };
  const http = { group: ['**/http/*'], message: 'Only cli/ sits above http/.' };
  const shared = {
    group: ['**/config/*', '**/service/*', '**/files/*'],
    message: 'config/, service/ and files/ sit above observe/ and core/.'
  };
  const observe = {
    group: ['**/observe/*'],
    message: 'core/ is pure: it reads observations (core/observations.ts), never gathers them.'
  };
  const io = [
    'fs',
    'net',
    'http',
    'https',
    'child_process',
    'dgram',
    'os',
    'readline'
  ].flatMap(name => [name, `node:${name}`]);
  const rule = (patterns, paths = []) => ({
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: paths.map(name => ({
          name,
          message: 'core/ is pure: no file system, network, process or terminal.',
          allowTypeImports: true
        })),
        patterns
      }
    ]
  });
  return [
    { files: ['sidecar/src/core/**/*.ts'], rules: rule([cli, http, shared, observe], io) },
    { files: ['sidecar/src/observe/**/*.ts'], rules: rule([cli, http, shared]) },
    {
      files: ['sidecar/src/{config,service,files}/**/*.ts'],
      rules: rule([cli, http])
    },
    { files: ['sidecar/src/http/**/*.ts'], rules: rule([cli]) }
  ];
}
