import type pg from 'pg';

/**
 * What PostgreSQL did per request during a run, from pg_stat_statements: which statements ran, how
 * often per request, and their execution and planning time. The benchmarks' embedded server loads
 * the extension (bench/database.ts; PostgreSQL 14 or later); on a BENCH_DATABASE_URL server without
 * it the figures are left out. Statements of the benchmark itself (this module's) are not counted.
 */
export interface StatementFigures {
  /** Calls per request of the statements the server sent (not those run inside triggers or functions). */
  calls_per_request: number;
  /** Execution and planning time per request, in ms (wall time in the backend, not CPU). */
  exec_ms_per_request: number;
  plan_ms_per_request: number;
  /** The statements by total time (nested ones too, marked), with their share per request. */
  top: {
    statement: string;
    nested: boolean;
    calls_per_request: number;
    exec_ms: number;
    plan_ms: number;
    rows_per_call: number;
  }[];
}

export class StatementStats {
  private constructor(private readonly pool: pg.Pool) {}

  /** The statistics of `pool`'s server, or undefined when the extension is not loaded there. */
  static async open(pool: pg.Pool): Promise<StatementStats | undefined> {
    try {
      await pool.query('create extension if not exists pg_stat_statements');
      await pool.query('select pg_stat_statements_reset()');
      return new StatementStats(pool);
    } catch {
      return undefined;
    }
  }

  /** Starts a run: forgets what ran before. */
  async reset(): Promise<void> {
    await this.pool.query('select pg_stat_statements_reset()');
  }

  /** What ran since the last reset, per request of the run. */
  async read(requests: number, top = 6): Promise<StatementFigures> {
    const { rows } = await this.pool.query<{
      query: string;
      calls: string;
      exec_ms: number;
      plan_ms: number;
      rows: string;
      toplevel: boolean;
    }>(
      `select query, calls, total_exec_time as exec_ms, total_plan_time as plan_ms, rows, toplevel
       from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
         and query not like '%pg_stat_statements%'
       order by total_exec_time + total_plan_time desc`,
    );
    const per = (value: number) => (requests ? Math.round((value / requests) * 1000) / 1000 : 0);
    // A nested statement's time is already in the time of the statement that ran it.
    const sent = rows.filter((row) => row.toplevel);
    const sum = (pick: (row: (typeof rows)[number]) => number) => sent.reduce((total, row) => total + pick(row), 0);
    return {
      calls_per_request: per(sum((row) => Number(row.calls))),
      exec_ms_per_request: per(sum((row) => row.exec_ms)),
      plan_ms_per_request: per(sum((row) => row.plan_ms)),
      top: rows.slice(0, top).map((row) => ({
        statement: row.query.replace(/\s+/g, ' ').trim().slice(0, 120),
        nested: !row.toplevel,
        calls_per_request: per(Number(row.calls)),
        exec_ms: per(row.exec_ms),
        plan_ms: per(row.plan_ms),
        rows_per_call: Number(row.calls) ? Math.round((Number(row.rows) / Number(row.calls)) * 10) / 10 : 0,
      })),
    };
  }
}
