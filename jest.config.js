/** Jest: TypeScript through ts-jest; real servers on loopback, so tests run in node. */

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
    // JupyterLab's front-end packages (and the web-components toolkit under ui-components) ship
    // ES modules and import SVGs as strings and CSS for effect; the jsdom tests load them for
    // real (MainAreaWidget, ReactWidget, the status bar, the setting registry), so they are
    // compiled to CommonJS, as JupyterLab's own jest configuration does. The project's own .js
    // files stay untransformed.
    '^.+/node_modules/.+\\.js$': [
      'ts-jest',
      {
        tsconfig: {
          allowJs: true,
          module: 'commonjs',
          target: 'ES2022',
          esModuleInterop: true,
          isolatedModules: true,
          skipLibCheck: true
        },
        diagnostics: false
      }
    ],
    '\\.svg$': '<rootDir>/test/helpers/raw-transform.js'
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(@jupyterlab|@jupyter|@microsoft|@rjsf|exenv-es6)/)'
  ],
  moduleNameMapper: { '\\.css$': '<rootDir>/test/helpers/style-stub.js' },
  testTimeout: 30000,
  // Stops a full run at once, with the install command, on a machine without the Debian packages.
  globalSetup: '<rootDir>/test/helpers/prerequisites.js'
};
