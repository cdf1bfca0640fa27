import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../api-keys/api-key.entity.ts';
import { digestApiKey } from '../api-keys/api-key.secret.ts';
import { issueApiKey } from '../api-keys/api-key.service.ts';
import type { Logger } from '../core/logger.ts';
import { User } from '../users/user.entity.ts';
import { createDemoHousehold, DEMO_EMAIL } from './demo-household.ts';

const KEY_NAME = 'Demo key';

/**
 * Makes sure the demo household exists and returns a working read_write key for it. The key is
 * kept in `<dataDir>/demo-api-key` (readable by the owner only) so each start can print it again;
 * only its digest is in the database. With an AI provider configured, the demo user may use the
 * assistant.
 */
export async function ensureDemoAccess(
  em: EntityManager,
  dataDir: string,
  logger: Logger,
  options: { aiAvailable: boolean } = { aiAvailable: false },
): Promise<{ key: string; email: string }> {
  let user = await em.findOne(User, { email: DEMO_EMAIL });
  if (!user) {
    logger.info('creating the demo household');
    user = (await createDemoHousehold(em)).user;
  }
  if (options.aiAvailable && !user.aiEnabled) {
    user.aiEnabled = true;
    await em.flush();
  }
  const keyFile = path.join(dataDir, 'demo-api-key');
  const saved = (await readFile(keyFile, 'utf8').catch(() => '')).trim();
  if (saved) {
    const stored = await em.findOne(ApiKey, { keyDigest: digestApiKey(saved), user, revokedAt: null });
    if (stored) return { key: saved, email: DEMO_EMAIL };
  }
  const { key } = await issueApiKey(em, { user, scope: 'read_write', name: KEY_NAME });
  await mkdir(dataDir, { recursive: true });
  await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
  await chmod(keyFile, 0o600);
  return { key, email: DEMO_EMAIL };
}
