import { Forbidden, Unauthorized, ValidationFailed } from '../core/errors.ts';
import { sql } from '../core/sql.ts';
import type { Handlers } from '../http/contract.ts';
import { INVALID_CREDENTIALS, MfaRequired, signInWithPassword, type SignInContext } from '../auth/password-sign-in.ts';
import { currentUser, enableAssistant, renameUser } from './current-user.ts';
import { deleteUser } from './user-deletion.ts';

/** What a wrong second factor is called in a deletion's confirmation, by sign-in's word for it. */
const CODE_PROBLEMS: Record<string, string> = {
  'Two-factor authentication code is required': 'otp_code is required, the user has a second factor',
  'Two-factor authentication code is invalid': "otp_code is not a current, unused code of the user's second factor",
};

/**
 * The signed-in user's own operations. Deleting needs the password (and the second factor) checked
 * exactly as a sign-in checks them, under the same limits; a wrong one is a 422 at its member, not
 * a 401: the credential itself is fine, and clients take a 401 as "sign in again".
 */
export function usersHandlers(
  context: SignInContext & { aiAvailable: boolean },
): Handlers<'getCurrentUser' | 'updateCurrentUser' | 'deleteCurrentUser' | 'enableAi'> {
  return {
    async getCurrentUser({ db, principal }) {
      return { status: 200, body: { data: await currentUser(db, principal.userId) } };
    },

    async updateCurrentUser({ em, principal, body }) {
      await renameUser(em, principal.userId, body.user);
      return { status: 200, body: { data: await currentUser(em, principal.userId) } };
    },

    async enableAi({ em, principal }) {
      if (!context.aiAvailable) throw new Forbidden('feature_disabled', 'AI is not available for your account');
      await enableAssistant(em, principal.userId);
      return { status: 200, body: { data: await currentUser(em, principal.userId) } };
    },

    async deleteCurrentUser({ em, principal, body, address }) {
      const [user] = await sql<{ email: string; has_password: boolean }>(
        em,
        'select email, password_hash is not null as has_password from users where id = ?',
        [principal.userId],
      );
      if (!user) throw new Unauthorized();
      if (!user.has_password) {
        throw ValidationFailed.at(
          '/password',
          'The user signs in through single sign-on and has no password to confirm with',
        );
      }
      try {
        await signInWithPassword(
          em,
          context,
          { email: user.email, password: body.password, otpCode: body.otp_code, address },
          'check',
        );
      } catch (error) {
        if (error instanceof MfaRequired) {
          throw ValidationFailed.at('/otp_code', CODE_PROBLEMS[error.message] ?? error.message);
        }
        if (error instanceof Unauthorized && error.message === INVALID_CREDENTIALS) {
          throw ValidationFailed.at('/password', 'password is not correct');
        }
        throw error;
      }
      await deleteUser(em, principal.userId);
      return { status: 200, body: { data: { id: principal.userId, deleted: true } } };
    },
  };
}
