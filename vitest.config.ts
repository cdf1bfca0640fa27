import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // A quarter of OWASP's scrypt work per password hash (server/users/password.ts): the suite
    // hashes and checks hundreds of passwords on two cores. The production cost has its own test.
    env: { PASSWORD_SCRYPT_N: '32768' },
  },
});
