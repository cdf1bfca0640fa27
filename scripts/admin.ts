/**
 * Administration from the shell: the commands and exit codes are in USAGE below (and the README).
 * The last line of stdout is a JSON result; logs go to stderr. Uses DATABASE_URL when set, else
 * the embedded database (attaching to it when `npm start` runs).
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ApiKey } from '../server/api-keys/api-key.entity.ts';
import { digestApiKey } from '../server/api-keys/api-key.secret.ts';
import { issueApiKey, revokeApiKey } from '../server/api-keys/api-key.service.ts';
import { revokeUserTokens } from '../server/auth/access-tokens.ts';
import { disableSecondFactor, enableSecondFactor } from '../server/auth/second-factor.ts';
import { loadSealingKey } from '../server/auth/secret-box.ts';
import { loadConfig, type Config } from '../server/config.ts';
import { resolveDatabase } from '../server/db/database.ts';
import { sql } from '../server/core/sql.ts';
import { openOrm, type EntityManager } from '../server/db/orm.ts';
import { isKnownCurrency } from '../server/core/money/money.ts';
import { User } from '../server/users/user.entity.ts';
import { createUserWithFamily, EmailTaken } from '../server/users/user.service.ts';
import { createLogger } from '../server/core/logger.ts';

/** The command line is wrong: exit 2, before anything is looked up. */
class UsageError extends Error {}
/** The command was understood and refused by what is stored (no such user, email taken): exit 1. */
class Refused extends Error {}

/** Exit codes, as USAGE and the README state them. */
const EXIT = { done: 0, refused: 1, usage: 2 } as const;

const USAGE = `usage: npm run --silent admin -- <command> [options]
  create-user     --email E --password P --family NAME [--currency USD] [--ai]
  create-api-key  --email E --scope read|read_write [--name N] [--expires-in-days D]
  revoke-api-key  --key K
  deactivate-user --email E
  activate-user   --email E
  revoke-tokens   --email E
  enable-mfa      --email E
  disable-mfa     --email E
  enable-ai       --email E
  disable-ai      --email E
  help            this text (also --help, -h)
secrets stay out of the process list with --password-stdin / --key-stdin (first line of stdin)
or the environment variables ADMIN_PASSWORD / ADMIN_API_KEY instead of --password / --key
exit codes: 0 done (the last line of stdout is JSON); 1 refused or failed (the email is taken,
no user or key matches, the database cannot be reached); 2 usage error (nothing was looked up)`;

/** Where a secret may come from instead of the command line, which \`ps\` shows to every local user. */
const SECRETS = [
  { option: 'password', variable: 'ADMIN_PASSWORD' },
  { option: 'key', variable: 'ADMIN_API_KEY' },
] as const;

async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}

/** Fills --password / --key from stdin (`--<name>-stdin`) or the environment when not given as arguments. */
async function readSecrets(options: Options): Promise<void> {
  for (const { option, variable } of SECRETS) {
    if (options[`${option}-stdin`]) {
      if (options[option] !== undefined) throw new UsageError(`--${option} and --${option}-stdin exclude each other`);
      options[option] = await firstLineOfStdin();
    } else if (options[option] === undefined && process.env[variable]) {
      options[option] = process.env[variable];
    }
  }
}

type Options = Record<string, string | boolean | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function findUser(em: EntityManager, email: string): Promise<User> {
  const user = await em.findOne(User, { email: email.trim().toLowerCase() });
  if (!user) throw new Refused(`no user with email ${email}`);
  return user;
}

/** Each command checks its arguments before touching the database, so a usage error changes nothing. */
const commands: Record<
  string,
  { check(options: Options): void; run(em: EntityManager, options: Options, config: Config): Promise<object> }
> = {
  'create-user': {
    check(options) {
      const email = required(options, 'email');
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError(`--email "${email}" is not an email address`);
      if (required(options, 'password').length < 8) throw new UsageError('--password must have at least 8 characters');
      required(options, 'family');
      if (typeof options.currency === 'string' && !isKnownCurrency(options.currency)) {
        throw new UsageError(`--currency "${options.currency}" is not an ISO 4217 code`);
      }
    },
    async run(em, options) {
      const { user, family } = await createUserWithFamily(em, {
        email: required(options, 'email'),
        password: required(options, 'password'),
        familyName: required(options, 'family'),
        ...(typeof options.currency === 'string' ? { currency: options.currency } : {}),
        aiEnabled: options.ai === true,
      });
      return { user_id: user.id, family_id: family.id };
    },
  },
  'create-api-key': {
    check(options) {
      required(options, 'email');
      const scope = required(options, 'scope');
      if (scope !== 'read' && scope !== 'read_write')
        throw new UsageError(`--scope must be read or read_write, got "${scope}"`);
      const days = options['expires-in-days'];
      if (days !== undefined && !(Number(days) > 0))
        throw new UsageError('--expires-in-days must be a positive number');
    },
    async run(em, options) {
      const user = await findUser(em, required(options, 'email'));
      const days = options['expires-in-days'];
      const { key, apiKey } = await issueApiKey(em, {
        user,
        scope: required(options, 'scope') as 'read' | 'read_write',
        ...(typeof options.name === 'string' ? { name: options.name } : {}),
        expiresAt: days === undefined ? null : new Date(Date.now() + Number(days) * 86_400_000),
      });
      return { key, id: apiKey.id, scope: apiKey.scope };
    },
  },
  'revoke-api-key': {
    check: (options) => void required(options, 'key'),
    async run(em, options) {
      const apiKey = await em.findOne(ApiKey, { keyDigest: digestApiKey(required(options, 'key').trim()) });
      if (!apiKey) throw new Refused('no such API key');
      await revokeApiKey(em, apiKey);
      return { id: apiKey.id, revoked: true };
    },
  },
  'deactivate-user': {
    check: (options) => void required(options, 'email'),
    async run(em, options) {
      const user = await findUser(em, required(options, 'email'));
      // A trigger revokes the user's tokens with the update; the count is read before it.
      const [row] = await sql<{ revoked_tokens: number }>(
        em,
        `with live as (select count(*)::int as n from oauth_tokens where user_id = ? and revoked_at is null)
         update users set active = false where id = ? returning (select n from live) as revoked_tokens`,
        [user.id, user.id],
      );
      return { user_id: user.id, active: false, revoked_tokens: user.active ? row!.revoked_tokens : 0 };
    },
  },
  'activate-user': {
    check: (options) => void required(options, 'email'),
    async run(em, options) {
      const user = await findUser(em, required(options, 'email'));
      user.active = true;
      await em.flush();
      return { user_id: user.id, active: true };
    },
  },
  'revoke-tokens': {
    check: (options) => void required(options, 'email'),
    async run(em, options) {
      const user = await findUser(em, required(options, 'email'));
      return { user_id: user.id, revoked_tokens: await revokeUserTokens(em, user.id, Date.now()) };
    },
  },
  'enable-mfa': {
    check: (options) => void required(options, 'email'),
    async run(em, options, config) {
      const user = await findUser(em, required(options, 'email'));
      const key = loadSealingKey({ envKey: config.mfaEncryptionKey, dataDir: config.dataDir });
      const { secret, otpauthUrl } = await enableSecondFactor(em, user, key);
      return { otpauth_url: otpauthUrl, secret };
    },
  },
  'disable-mfa': {
    check: (options) => void required(options, 'email'),
    async run(em, options) {
      const user = await findUser(em, required(options, 'email'));
      await disableSecondFactor(em, user.id);
      return { user_id: user.id, mfa: false };
    },
  },
  'enable-ai': aiSwitch(true),
  'disable-ai': aiSwitch(false),
};

/** `enable-ai` / `disable-ai`: the user's assistant flag; the answer says whether a provider is configured. */
function aiSwitch(enabled: boolean): (typeof commands)[string] {
  return {
    check: (options) => void required(options, 'email'),
    async run(em, options, config) {
      const user = await findUser(em, required(options, 'email'));
      user.aiEnabled = enabled;
      await em.flush();
      return { user_id: user.id, ai_enabled: enabled, provider_configured: config.ai !== undefined };
    },
  };
}

const HELP = new Set(['help', '--help', '-h']);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name !== undefined && HELP.has(name)) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.done;
  }
  const command = name ? commands[name] : undefined;
  let options: Options;
  try {
    if (!command) throw new UsageError(name ? `unknown command "${name}"` : 'a command is required');
    options = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        family: { type: 'string' },
        currency: { type: 'string' },
        ai: { type: 'boolean' },
        scope: { type: 'string' },
        name: { type: 'string' },
        'expires-in-days': { type: 'string' },
        key: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        'key-stdin': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
    if (options.help) {
      process.stdout.write(`${USAGE}\n`);
      return EXIT.done;
    }
    await readSecrets(options);
    command.check(options);
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }

  try {
    const config = loadConfig();
    const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', pino.destination(2));
    const database = await resolveDatabase(config, logger);
    const orm = await openOrm(database.url, 2);
    try {
      const result = await command.run(orm.em.fork(), options, config);
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return EXIT.done;
    } finally {
      await orm.close();
      await database.stop();
    }
  } catch (error) {
    // Refused by what is stored, or failed (no database, say): either way not done.
    const known = error instanceof Refused || error instanceof EmailTaken;
    process.stderr.write(`error: ${known ? error.message : String((error as Error).stack ?? error)}\n`);
    return EXIT.refused;
  }
}

process.exit(await main(process.argv.slice(2)));
