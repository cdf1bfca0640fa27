import pg from 'pg';

// Calendar dates stay strings (`YYYY-MM-DD`): turning them into JS Dates would shift them by
// the process time zone. numeric stays a string too (pg's default), so money is never a float.
const DATE_OID = 1082;
pg.types.setTypeParser(DATE_OID, (value: string) => value);
