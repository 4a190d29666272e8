/** Jest: TypeScript through ts-jest; real servers on loopback, so tests run in node. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
    // JupyterLab's front-end packages ship ES modules (and import SVGs as strings, CSS for
    // effect); the jsdom tests that load them for real (the status bar item, the setting
    // registry) get them as CommonJS, as JupyterLab's own jest configuration does.
    '^.+/node_modules/.+\\.js$': [
      'ts-jest',
      {
        tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true, isolatedModules: true, skipLibCheck: true },
        diagnostics: false
      }
    ],
    '\\.svg$': '<rootDir>/test/helpers/raw-transform.js'
  },
  transformIgnorePatterns: ['/node_modules/(?!(@jupyterlab|@jupyter|@microsoft|@rjsf|exenv-es6)/)'],
  moduleNameMapper: { '\\.css$': '<rootDir>/test/helpers/style-stub.js' },
  testTimeout: 30000,
  // Stops a full run at once, with the install command, on a machine without the Debian packages.
  globalSetup: '<rootDir>/test/helpers/prerequisites.js'
};
