/** Jest: TypeScript through ts-jest; real servers on loopback, so tests run in node. */

// JupyterLab's front-end packages (and the web-components toolkit under ui-components) ship
// ES modules; the extension's jsdom tests use the real @jupyterlab/apputils and ui-components
// (MainAreaWidget, ReactWidget, ToolbarButton, Button), so those are compiled to CommonJS too.
// Every other package, and the project's own .js files, stay untransformed.
const ESM_PACKAGES = ['@jupyterlab', '@jupyter', '@microsoft', 'exenv-es6'];
const ESM_PATH = `node_modules/(${ESM_PACKAGES.join('|')})/`;

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
    [`${ESM_PATH}.+\\.js$`]: [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true, isolatedModules: true } }
    ],
    [`${ESM_PATH}.+\\.svg$`]: '<rootDir>/test/helpers/svg-transform.js'
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  testTimeout: 30000,
  // Stops a full run at once, with the install command, on a machine without the Debian packages.
  globalSetup: '<rootDir>/test/helpers/prerequisites.js'
};
