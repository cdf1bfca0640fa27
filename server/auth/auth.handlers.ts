import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { BadRequest, Forbidden, Unauthorized } from '../core/errors.ts';
import type { Handlers } from '../http/contract.ts';
import { readDevice, refreshTokens, signInDevice } from './access-tokens.ts';
import type { AuthDependencies } from './auth-dependencies.ts';
import {
  DEACTIVATED,
  INVALID_CREDENTIALS,
  signInWithPassword,
  USER_COLUMNS,
  withUser,
  type SignInUser,
} from './password-sign-in.ts';
import { consumeCode, peekCode } from './sso-codes.ts';
import { createUserFromIdentity, linkIdentity } from './sso-accounts.ts';

const LINKING_CODE_INVALID = 'Linking code is invalid or expired';

/** A required text member that the contract leaves optional so that its absence is a 400 in these words. */
function requiredText(value: string | undefined, pointer: string, message: string): string {
  if (value === undefined || value.trim() === '') throw new BadRequest(message, [{ message, path: pointer }]);
  return value;
}

export function authHandlers(
  deps: AuthDependencies,
): Handlers<'login' | 'refreshToken' | 'exchangeSsoCode' | 'linkSsoAccount' | 'createSsoAccount'> {
  const { clock } = deps;

  return {
    async login({ em, body, address }) {
      const device = readDevice(body.device);
      if (!device) {
        const message = 'Device information is required';
        throw new BadRequest(message, [{ message, path: '/device' }]);
      }
      const user = await signInWithPassword(
        em,
        deps,
        { email: body.email, password: body.password, otpCode: body.otp_code, address },
        'check',
      );
      const tokens = await writeUnit(em, (tx) => signInDevice(tx, user.id, device, clock()));
      return { status: 200, body: withUser(tokens, user) };
    },

    async refreshToken({ em, body }) {
      const token = requiredText(body.refresh_token, '/refresh_token', 'Refresh token is required');
      const tokens = await refreshTokens(em, token.trim(), clock());
      if (!tokens) throw new Unauthorized('Invalid refresh token');
      return { status: 200, body: tokens };
    },

    async exchangeSsoCode({ em, body }) {
      const code = requiredText(body.code, '/code', 'Code is required').trim();
      const signedIn = await writeUnit(em, async (tx) => {
        const now = clock();
        const used = await consumeCode(tx, 'exchange', code, now);
        if (!used) return undefined;
        const [user] = await sql<SignInUser>(tx, `select ${USER_COLUMNS} from users where id = ?`, [used.user_id]);
        // Deactivated since the provider sign-in: the code is used up, nothing is issued.
        if (!user?.active) return { user: undefined };
        return { user, tokens: await signInDevice(tx, user.id, used.payload.device, now) };
      });
      if (!signedIn) throw new Unauthorized('Authorization code is invalid or expired');
      if (!signedIn.user || !signedIn.tokens) throw new Unauthorized(DEACTIVATED);
      return { status: 200, body: withUser(signedIn.tokens, signedIn.user) };
    },

    async linkSsoAccount({ em, body, address }) {
      const code = requiredText(body.linking_code, '/linking_code', 'Linking code is required').trim();
      if (!(await peekCode(em, 'linking', code, clock()))) throw new Unauthorized(LINKING_CODE_INVALID);
      if (!body.email || !body.password) throw new Unauthorized(INVALID_CREDENTIALS);
      // Every check that leaves the code usable comes first (seed rules 1, 2).
      const user = await signInWithPassword(
        em,
        deps,
        { email: body.email, password: body.password, address },
        'refuse',
      );
      const tokens = await writeUnit(em, async (tx) => {
        const now = clock();
        // Rule 4: used up in one statement, before the link is written, in the same transaction.
        const used = await consumeCode(tx, 'linking', code, now);
        if (!used) throw new Unauthorized(LINKING_CODE_INVALID);
        await linkIdentity(tx, user.id, used.payload);
        return signInDevice(tx, user.id, used.payload.device, now);
      });
      return { status: 200, body: withUser(tokens, user) };
    },

    async createSsoAccount({ em, body }) {
      const code = requiredText(body.linking_code, '/linking_code', 'Linking code is required').trim();
      const pending = await peekCode(em, 'linking', code, clock());
      if (!pending) throw new Unauthorized(LINKING_CODE_INVALID);
      if (!pending.allow_account_creation) {
        throw new Forbidden('forbidden', 'SSO account creation is disabled. Please contact an administrator.');
      }
      const { user, tokens } = await writeUnit(em, async (tx) => {
        const now = clock();
        const used = await consumeCode(tx, 'linking', code, now);
        if (!used) throw new Unauthorized(LINKING_CODE_INVALID);
        const names = {
          first_name: body.first_name?.trim() || used.payload.first_name,
          last_name: body.last_name?.trim() || used.payload.last_name,
        };
        const created = await createUserFromIdentity(tx, used.payload, names, deps.config.defaultCurrency);
        return { user: created, tokens: await signInDevice(tx, created.id, used.payload.device, now) };
      });
      return { status: 200, body: withUser(tokens, user) };
    },
  };
}
