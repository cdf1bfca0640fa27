import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../server/api-keys/api-key.service.ts';
import { createUserWithFamily } from '../../server/users/user.service.ts';
import { startTestServer, type TestServer } from './test-server.ts';

/** The password of every test household's user. */
export const HOUSEHOLD_PASSWORD = 'correct horse battery';

export interface TestHousehold {
  familyId: string;
  userId: string;
  email: string;
  /** A read_write key and a read key. */
  writeKey: string;
  readKey: string;
}

/** A family with one user and two keys, created through the same services the admin CLI uses. */
export async function createHousehold(
  server: TestServer,
  options: { currency?: string; aiEnabled?: boolean } = {},
): Promise<TestHousehold> {
  const em = server.em();
  const email = `user-${randomUUID()}@example.test`;
  const { user, family } = await createUserWithFamily(em, {
    email,
    password: HOUSEHOLD_PASSWORD,
    familyName: 'Test family',
    ...options,
  });
  const { key: writeKey } = await issueApiKey(em, { user, scope: 'read_write' });
  const { key: readKey } = await issueApiKey(em, { user, scope: 'read' });
  return { familyId: family.id, userId: user.id, email, writeKey, readKey };
}

/** The usual start of an API test file: the app on a database of its own and two unrelated households. */
export async function startWithTwoHouseholds(
  other: Parameters<typeof createHousehold>[1] = {},
): Promise<{ server: TestServer; household: TestHousehold; other: TestHousehold }> {
  const server = await startTestServer();
  return { server, household: await createHousehold(server), other: await createHousehold(server, other) };
}
