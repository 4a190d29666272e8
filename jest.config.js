/** Jest: TypeScript through ts-jest; real servers on loopback, so tests run in node. */

const base = {
  testEnvironment: 'node',
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
  moduleNameMapper: { '\\.css$': '<rootDir>/test/helpers/style-stub.js' }
};

// Three lanes (docs/testing.md): `unit` is pure (no processes, no network), `service` runs real
// sidecar processes, `system` runs browsers, JupyterHub, Slurm and installs. The prerequisites
// check (Debian's Jupyter, Chromium, Slurm…) stops a full run of the two lanes that need them at
// once, with the install command; the unit lane needs none of it.
const PREREQUISITES = '<rootDir>/test/helpers/prerequisites.js';
module.exports = {
  // A bound for a hung test, not an expectation: under PROJECT_STARTUP_TEST_SERVE_NICE and a busy
  // machine, a test that starts several services waits long for the CPU.
  testTimeout: 120000,
  projects: [
    { ...base, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    {
      ...base,
      displayName: 'service',
      roots: ['<rootDir>/test/service'],
      globalSetup: PREREQUISITES
    },
    {
      ...base,
      displayName: 'system',
      roots: ['<rootDir>/test/system'],
      // The prerequisites, then the real Jupyter stack with this checkout's wheel.
      globalSetup: '<rootDir>/test/helpers/system-setup.js'
    }
  ]
};
