/** Jest: TypeScript through ts-jest; real servers on loopback, so tests run in node. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }]
  },
  testTimeout: 30000,
  // Stops a full run at once, with the install command, on a machine without the Debian packages.
  globalSetup: '<rootDir>/test/helpers/prerequisites.js'
};
