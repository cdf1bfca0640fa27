import type { JobHelpers, Task } from 'graphile-worker';
import type { ImportSettings } from '../config.ts';
import { defineTask, queueJob } from '../core/job-queue.ts';
import { inTransaction, sqlOn, type Queryable, type SqlTarget } from '../core/sql.ts';

/** The statuses whose work a job does: an import in one of them waits for, or holds, its family's turn. */
export type WorkStatus = 'staging' | 'importing' | 'reverting';

type ImportTask = 'import_stage' | 'import_process' | 'import_revert';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Read the CSV of a `staging` import into its rows. */
    import_stage: { import_id: string; family_id?: string };
    /** Write every row of an `importing` import, in one transaction. */
    import_process: { import_id: string; family_id?: string };
    /** Undo a `reverting` import, in one transaction. */
    import_revert: { import_id: string; family_id?: string };
  }
}

const TASKS: Record<WorkStatus, ImportTask> = {
  staging: 'import_stage',
  importing: 'import_process',
  reverting: 'import_revert',
};

/**
 * The named graphile-worker queue (lane) a family's import jobs run in. Jobs of one lane run one
 * at a time, so `concurrency` lanes cap import work across every worker process; a family is
 * always in the same lane.
 */
function lane(familyId: string, settings: ImportSettings): string {
  if (settings.concurrency === 1) return 'imports';
  return `imports:${Number.parseInt(familyId.slice(0, 8), 16) % settings.concurrency}`;
}

/**
 * The family's import lock: every change of who holds the family's turn, or waits for it, is made
 * under it (requests and jobs alike). Lock order: taken before any import row is locked, after
 * the account a request checks, and never by a transaction that locks accounts afterwards.
 */
export async function lockFamilyImports(target: SqlTarget, familyId: string): Promise<void> {
  await sqlOn(target)('select pg_advisory_xact_lock(hashtext(?))', [`imports:${familyId}`]);
}

/**
 * When no import of the family holds the turn, gives it to the one waiting longest and queues
 * its job (at the end of its lane, behind other families' jobs: families take turns). The
 * caller holds the family's import lock.
 */
export async function passTurn(target: SqlTarget, familyId: string, settings: ImportSettings): Promise<void> {
  const [next] = await sqlOn(target)<{ id: string; status: WorkStatus }>(
    `with next as (
       select id from imports
       where family_id = ?::uuid and queued_at is not null
         and not exists (select 1 from imports h where h.family_id = ?::uuid and h.holds_turn)
       order by queued_at, id limit 1 for update
     )
     update imports i set holds_turn = true from next where i.id = next.id returning i.id, i.status`,
    [familyId, familyId],
  );
  if (next) await queueTurnJob(target, familyId, next.id, next.status, settings);
}

/**
 * Queues the job of `status` for an import that holds its family's turn, in the family's lane: one
 * job key per task and import, 3 attempts.
 */
export async function queueTurnJob(
  target: SqlTarget,
  familyId: string,
  id: string,
  status: WorkStatus,
  settings: ImportSettings,
): Promise<void> {
  const task = TASKS[status];
  await queueJob(
    target,
    task,
    { import_id: id, family_id: familyId },
    { jobKey: `${task}:${id}`, queueName: lane(familyId, settings), maxAttempts: 3 },
  );
}

/**
 * Asks for `status`'s work on an import that has none: it waits its turn in the family's queue
 * (`queued_at`), and gets it at once when nothing of the family runs or waits. The caller holds
 * the family's import lock.
 */
export async function askTurn(
  target: SqlTarget,
  familyId: string,
  id: string,
  status: WorkStatus,
  settings: ImportSettings,
): Promise<void> {
  // clock_timestamp: imports asked for in one transaction keep their order.
  await sqlOn(target)(
    `update imports set status = ?, queued_at = clock_timestamp(), holds_turn = false, updated_at = now() where id = ?`,
    [status, id],
  );
  await passTurn(target, familyId, settings);
}

/** The SET part of an update that ends an import's work: it leaves the family's turn. */
export const LEAVE_TURN = 'holds_turn = false, queued_at = null';

async function familyOf(client: Queryable, importId: string): Promise<string | undefined> {
  const [row] = await sqlOn(client)<{ family_id: string }>('select family_id from imports where id = ?::uuid', [
    importId,
  ]);
  return row?.family_id;
}

/** What an import task's work gets: the job's connection and helpers, and whether this is its last attempt. */
export interface TurnWork {
  importId: string;
  client: Queryable;
  helpers: JobHelpers;
  lastAttempt: boolean;
}

/**
 * An import task that runs in its family's turn: it starts only when its import is still in
 * `status` and holds the turn (so a job of a deleted or changed import does nothing), marks it
 * running (no longer queued), does `work`, and in the end passes the turn on, whatever `work`
 * found to do. When `work` throws, the job is retried and the import keeps the turn.
 */
export function turnTask(
  name: ImportTask,
  status: WorkStatus,
  settings: ImportSettings,
  work: (job: TurnWork) => Promise<void>,
): Task {
  return defineTask(name, ['import_id'], async ({ import_id: importId, family_id }, helpers) => {
    await helpers.withPgClient(async (client) => {
      // Jobs queued before families took turns carry no family.
      const familyId = family_id ?? (await familyOf(client, importId));
      if (!familyId) return;
      const timeout = { statementTimeoutMs: settings.statementTimeoutMs };
      const started = await inTransaction(
        client,
        async (run) => {
          await lockFamilyImports(client, familyId);
          const [running] = await run(
            `update imports set queued_at = null where id = ?::uuid and status = ? and holds_turn returning id`,
            [importId, status],
          );
          return running !== undefined;
        },
        timeout,
      );
      if (started) {
        await work({ importId, client, helpers, lastAttempt: helpers.job.attempts >= helpers.job.max_attempts });
      }
      await inTransaction(
        client,
        async () => {
          await lockFamilyImports(client, familyId);
          await passTurn(client, familyId, settings);
        },
        timeout,
      );
    });
  });
}

const WORK_STATUSES = Object.keys(TASKS) as WorkStatus[];

/** SQL: the job key prefix of an import `i` in a work status, from TASKS (`queueTurnJob`'s keys). */
const JOB_KEY_PREFIX = `case i.status ${Object.entries(TASKS)
  .map(([status, task]) => `when '${status}' then '${task}:'`)
  .join(' ')} end`;

/**
 * Where a family's turn was lost, gives it back: an import holding the turn in a work status whose
 * job is spent or gone (its three attempts fell within a database outage, so not even its last
 * attempt could mark it failed) gets its job again; a family whose queue waits with no holder (the
 * step that passes the turn on failed) has the turn passed. Returns how many families went on
 * again. Each family is checked again under its import lock, so nothing running is touched.
 */
export async function reviveTurns(client: Queryable, settings: ImportSettings): Promise<number> {
  const timeout = { statementTimeoutMs: settings.statementTimeoutMs };
  // A job is alive while it may still run: taken now, or with attempts left.
  const stuck = (familyFilter: string) => `
    select i.id, i.family_id, i.status, i.holds_turn from imports i
    where ${familyFilter}
      and ((i.holds_turn and i.status in (${WORK_STATUSES.map((status) => `'${status}'`).join(', ')})
            and not exists (
              select 1 from graphile_worker.jobs j
              where j.key = (${JOB_KEY_PREFIX}) || i.id
                and (j.locked_at is not null or j.attempts < j.max_attempts)))
        or (i.queued_at is not null
            and not exists (select 1 from imports h where h.family_id = i.family_id and h.holds_turn)))`;
  const families = await sqlOn(client)<{ family_id: string }>(`select distinct family_id from (${stuck('true')}) s`);
  let revived = 0;
  for (const { family_id: familyId } of families) {
    revived += await inTransaction(
      client,
      async (run) => {
        await lockFamilyImports(client, familyId);
        const rows = await run<{ id: string; status: WorkStatus; holds_turn: boolean }>(
          stuck('i.family_id = ?::uuid'),
          [familyId],
        );
        const holder = rows.find((row) => row.holds_turn);
        if (holder) await queueTurnJob(client, familyId, holder.id, holder.status, settings);
        else if (rows.length) await passTurn(client, familyId, settings);
        return holder || rows.length ? 1 : 0;
      },
      timeout,
    );
  }
  return revived;
}
