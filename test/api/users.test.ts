import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableSecondFactor } from '../../server/auth/second-factor.ts';
import { totpCode } from '../../server/auth/totp.ts';
import { issueApiKey } from '../../server/api-keys/api-key.service.ts';
import { loadConfig } from '../../server/config.ts';
import { Family } from '../../server/families/family.entity.ts';
import { User } from '../../server/users/user.entity.ts';
import { hashPassword } from '../../server/users/password.ts';
import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { familyRowCounts, fillHousehold } from '../support/household-data.ts';
import { createHousehold, HOUSEHOLD_PASSWORD, type TestHousehold } from '../support/households.ts';
import { bearer, login } from '../support/sign-in.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let other: TestHousehold;

beforeAll(async () => {
  // A provider nobody answers at: enabling the assistant needs one configured, not reachable.
  server = await startTestServer({
    ai: loadConfig({ AI_BASE_URL: 'http://127.0.0.1:9/v1' }).ai,
    loginFailuresPerEmailAndAddress: 1000,
    loginFailuresPerAddress: 1000,
    loginAttemptsPerAddress: 1000,
    passwordHashWaitMs: 60_000,
  });
  other = await createHousehold(server);
  await fillHousehold(server, other);
});
afterAll(() => server?.close());

/** A second member of a household's family, with a read_write key. */
async function addMember(household: TestHousehold): Promise<TestHousehold> {
  const em = server.em();
  const email = `member-${household.userId}@example.test`;
  const user = em.create(User, {
    family: em.getReference(Family, household.familyId),
    email,
    passwordHash: await hashPassword(HOUSEHOLD_PASSWORD),
  });
  await em.flush();
  const { key: writeKey } = await issueApiKey(em, { user, scope: 'read_write' });
  const { key: readKey } = await issueApiKey(em, { user, scope: 'read' });
  return { familyId: household.familyId, userId: user.id, email, writeKey, readKey };
}

const deleteMe = (key: string, body: unknown) => server.api.call('deleteCurrentUser', { key, body });

describe('the signed-in user', () => {
  it('reads the user with their family, and changes the names', async () => {
    const household = await createHousehold(server, { currency: 'EUR' });
    const me = await server.api.call('getCurrentUser', { key: household.readKey });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      id: household.userId,
      email: household.email,
      first_name: null,
      last_name: null,
      ai_enabled: false,
      mfa_enabled: false,
      family: {
        id: household.familyId,
        name: 'Test family',
        currency: 'EUR',
        locale: 'en-US',
        date_format: '%Y-%m-%d',
      },
    });

    const renamed = await server.api.call('updateCurrentUser', {
      key: household.writeKey,
      body: { user: { first_name: '  Alex ', last_name: 'Morgan' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ first_name: 'Alex', last_name: 'Morgan' });
    const cleared = await server.api.call('updateCurrentUser', {
      key: household.writeKey,
      body: { user: { last_name: '   ' } },
    });
    expect(cleared.body.data).toMatchObject({ first_name: 'Alex', last_name: null });

    expect(
      (await server.api.call('updateCurrentUser', { key: household.readKey, body: { user: { first_name: 'x' } } }))
        .status,
    ).toBe(403);
    const empty = await server.api.call('updateCurrentUser', { key: household.writeKey, body: { user: {} } });
    expect(empty.status).toBe(422);
    expect((await server.api.call('getCurrentUser', { key: household.readKey })).body.data.first_name).toBe('Alex');
  });

  it('turns the assistant on, after which the chats answer the user', async () => {
    const household = await createHousehold(server);
    expect((await server.api.call('listChats', { key: household.readKey })).status).toBe(403);
    expect((await server.api.call('enableAi', { key: household.readKey })).status).toBe(403);
    const enabled = await server.api.call('enableAi', { key: household.writeKey });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ id: household.userId, ai_enabled: true });
    expect((await server.api.call('enableAi', { key: household.writeKey })).body.data.ai_enabled).toBe(true);
    expect((await server.api.call('listChats', { key: household.readKey })).status).toBe(200);
  });

  it('refuses to turn the assistant on when the server has no provider', async () => {
    const bare = await startTestServer();
    try {
      const household = await createHousehold(bare);
      const refused = await bare.api.call('enableAi', { key: household.writeKey });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        error: 'feature_disabled',
        message: 'AI is not available for your account',
      });
      expect((await bare.api.call('getCurrentUser', { key: household.readKey })).body.data.ai_enabled).toBe(false);
    } finally {
      await bare.close();
    }
  });
});

describe('deleting the signed-in user', () => {
  it('refuses a wrong or missing password and deletes nothing', async () => {
    const household = await createHousehold(server);
    await fillHousehold(server, household);
    const before = await familyRowCounts(server, household.familyId);
    const wrong = await deleteMe(household.writeKey, { password: 'not my password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([{ path: '/body/password', message: 'password is not correct' }]);
    expect((await deleteMe(household.writeKey, {})).status).toBe(422);
    expect((await server.api.request('DELETE', '/api/v1/users/me', { key: household.writeKey })).status).toBe(422);
    expect((await deleteMe(household.readKey, { password: HOUSEHOLD_PASSWORD })).status).toBe(403);
    expect(await familyRowCounts(server, household.familyId)).toEqual(before);
  });

  it('refuses a user without a password (single sign-on) and says why', async () => {
    const household = await createHousehold(server);
    await server.query('update users set password_hash = null where id = $1', [household.userId]);
    const refused = await deleteMe(household.writeKey, { password: HOUSEHOLD_PASSWORD });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      {
        path: '/body/password',
        message: 'The user signs in through single sign-on and has no password to confirm with',
      },
    ]);
    expect((await server.api.call('getCurrentUser', { key: household.readKey })).status).toBe(200);
  });

  it('needs a fresh one-time code from a user with a second factor', async () => {
    const household = await createHousehold(server);
    const { secret } = await enableSecondFactor(
      server.em(),
      { id: household.userId, email: household.email },
      server.sealingKey,
    );
    expect((await server.api.call('getCurrentUser', { key: household.readKey })).body.data.mfa_enabled).toBe(true);
    const missing = await deleteMe(household.writeKey, { password: HOUSEHOLD_PASSWORD });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].path).toBe('/body/otp_code');
    const code = totpCode(secret, server.time.now());
    // The code is used up by a sign-in first: it does not delete afterwards.
    expect((await login(server, household.email, { otp_code: code })).status).toBe(200);
    const reused = await deleteMe(household.writeKey, { password: HOUSEHOLD_PASSWORD, otp_code: code });
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0].path).toBe('/body/otp_code');
    expect((await server.api.call('getCurrentUser', { key: household.readKey })).status).toBe(200);

    server.time.advance(30_000);
    try {
      const deleted = await deleteMe(household.writeKey, {
        password: HOUSEHOLD_PASSWORD,
        otp_code: totpCode(secret, server.time.now()),
      });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ data: { id: household.userId, deleted: true } });
    } finally {
      server.time.reset();
    }
    expect((await server.api.call('getCurrentUser', { key: household.readKey })).status).toBe(401);
  });

  it('deletes a member and their credentials; the last member takes the family with them', async () => {
    const household = await createHousehold(server, { aiEnabled: true });
    const data = await fillHousehold(server, household);
    const chat = await server.api.call('createChat', { key: household.writeKey, body: { title: 'Budget' } });
    expect(chat.status).toBe(201);
    const session = await login(server, household.email);
    const member = await addMember(household);
    const kept = await familyRowCounts(server, household.familyId);

    const first = await server.api.call('deleteCurrentUser', {
      headers: bearer(session.body.access_token),
      body: { password: HOUSEHOLD_PASSWORD },
    });
    expect(first.status).toBe(200);
    for (const key of [household.writeKey, household.readKey]) {
      expect((await server.api.call('getCurrentUser', { key })).status).toBe(401);
    }
    expect((await server.api.call('getCurrentUser', { headers: bearer(session.body.access_token) })).status).toBe(401);
    // The family and its data stay with the member left.
    const left = await familyRowCounts(server, household.familyId);
    expect(left).toMatchObject({ users: 1, chats: 0, oauth_tokens: 0, devices: 0, api_keys: 2 });
    expect({ ...left, users: 0, chats: 0, oauth_tokens: 0, devices: 0, api_keys: 0 }).toEqual({
      ...kept,
      users: 0,
      chats: 0,
      oauth_tokens: 0,
      devices: 0,
      api_keys: 0,
    });
    expect((await server.api.call('getAccount', { key: member.readKey, params: { id: data.checking } })).status).toBe(
      200,
    );

    expect((await deleteMe(member.writeKey, { password: HOUSEHOLD_PASSWORD })).status).toBe(200);
    const gone = await familyRowCounts(server, household.familyId);
    expect(Object.entries(gone).filter(([, n]) => n !== 0)).toEqual([]);
    await expectBalancesFresh(server);
  });

  it('stays whole under concurrent writes and deletes of the same user', async () => {
    const household = await createHousehold(server);
    const data = await fillHousehold(server, household);
    const key = household.writeKey;
    const write = (i: number) => {
      if (i % 4 === 0) {
        const transaction = {
          account_id: data.checking,
          date: '2024-03-20',
          amount: 3,
          name: `Late ${i}`,
          category_id: data.category,
        };
        return server.api.call('createTransaction', { key, body: { transaction } });
      }
      if (i % 4 === 1) return server.api.call('createCategory', { key, body: { category: { name: `Late ${i}` } } });
      if (i % 4 === 2) {
        const account = { name: `Late ${i}`, account_type: 'depository', balance: 10 };
        return server.api.call('createAccount', { key, body: { account } });
      }
      return server.api.call('deleteTransaction', { key, params: { id: data.transactions[i % 3]! } });
    };
    // Three deletes, and rounds of writes from before they start until after they are done.
    let done = false;
    const deleting = Promise.all([1, 2, 3].map(() => deleteMe(key, { password: HOUSEHOLD_PASSWORD }))).finally(
      () => (done = true),
    );
    const writes = [];
    for (let round = 0; round < 3 || !done; round++) {
      writes.push(...(await Promise.all(Array.from({ length: 8 }, (_, i) => write(round * 8 + i)))));
    }
    const answers = [...(await deleting), ...writes];
    expect(answers.length).toBeGreaterThanOrEqual(24);
    // A write of the last round may have passed the credential check before the delete committed
    // (and then find its record gone); a write sent after the delete meets a credential that is gone.
    for (let i = 0; i < 4; i++) expect((await write(i)).status).toBe(401);
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    const deletes = answers.filter((answer) => answer.operationId === 'deleteCurrentUser');
    expect(deletes.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(deletes.every((answer) => [200, 401].includes(answer.status))).toBe(true);
    const gone = await familyRowCounts(server, household.familyId);
    expect(Object.entries(gone).filter(([, n]) => n !== 0)).toEqual([]);
    await expectBalancesFresh(server);
  });
});
