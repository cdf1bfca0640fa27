import type { ImportSettings } from '../config.ts';
import { defineTask } from '../core/job-queue.ts';
import { reviveTurns } from './import-turns.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Give families whose import turn was lost in a database outage their turn back (every 5 minutes). */
    import_revive: Record<string, unknown>;
  }
}

/** The worker's crontab line of the task: every five minutes. */
export const IMPORT_REVIVE_CRONTAB = '*/5 * * * * import_revive';

/**
 * The `import_revive` task: a family's imports run one at a time, each queueing the next, so one
 * lost link (a job whose attempts were all spent while the database was away) would leave the
 * family's imports waiting for ever; this finds such families and sets them going again.
 */
export function importReviveTask(settings: ImportSettings) {
  return defineTask('import_revive', [], async (_payload, helpers) => {
    const revived = await helpers.withPgClient((client) => reviveTurns(client, settings));
    if (revived) helpers.logger.warn(`import_revive: ${revived} families' imports were stuck and go on again`);
  });
}
