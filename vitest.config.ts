import { configDefaults, defineConfig } from 'vitest/config';

/** Test files that use the PostgreSQL of the global setup (test/support/test-server.ts clones its template). */
const DATABASE_TESTS = [
  'test/api/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/contract/contract.test.ts',
  'test/contract-fuzz/**/*.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default on two cores is one fork (cores - 1). The tests often wait on PostgreSQL or
    // a child process: two forks took the no-db project from 89 s to 57 s; three were no better.
    maxWorkers: 2,
    // A fork runs file after file and keeps the modules it loaded: loading the server or the
    // language server again for each file cost a third of the suite's CPU time. Each file still
    // has its own database and app (test/support/test-server.ts).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // A quarter of OWASP's scrypt work per password hash (server/users/password.ts): the suite
    // hashes and checks hundreds of passwords on two cores. The production cost has its own test.
    env: { PASSWORD_SCRYPT_N: '32768' },
    projects: [
      {
        extends: true,
        test: { name: 'db', include: DATABASE_TESTS, globalSetup: ['test/support/global-setup.ts'] },
      },
      // The blueprint tooling, the CLI linter, the language server, the extension and pure units:
      // no PostgreSQL to start (`npm run test:quick`).
      {
        extends: true,
        test: {
          name: 'no-db',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...DATABASE_TESTS],
        },
      },
    ],
  },
});
