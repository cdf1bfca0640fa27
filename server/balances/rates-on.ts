import type { Sql } from '../core/sql.ts';

/** The rate of each currency into `to` on each date, by `code|date` (the one rate rule: exchange_rate_on). */
export async function ratesOn(
  run: Sql,
  familyId: string,
  codes: readonly string[],
  to: string,
  dates: readonly string[],
): Promise<Map<string, string | null>> {
  const rates = new Map<string, string | null>();
  if (!codes.length || !dates.length) return rates;
  const rows = await run<{ code: string; date: string; rate: string | null }>(
    `select c.code, to_char(d.date, 'YYYY-MM-DD') as date, exchange_rate_on(?::uuid, c.code, ?::text, d.date)::text as rate
       from unnest(?::text[]) as c(code), unnest(?::date[]) as d(date)`,
    [familyId, to, codes, dates],
  );
  for (const row of rows) rates.set(`${row.code}|${row.date}`, row.rate);
  return rates;
}
