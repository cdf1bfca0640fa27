import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Fields of a PostgreSQL error that name the failure without quoting values. */
const DATABASE_ERROR_FIELDS = ['code', 'severity', 'routine', 'constraint', 'table', 'column', 'statement'] as const;

/**
 * Errors as log fields. A database error's text may hold personal data and secrets anywhere: the
 * ORM puts the whole SQL with its values in its message, PostgreSQL quotes the offending value in
 * its own sentence ("invalid input syntax for type integer: ...") and in `detail`. So only what
 * names the failure is kept: SQLSTATE, routine, constraint, table, column and statement name.
 */
export function serializeError(error: unknown): object {
  const serialized = pino.stdSerializers.err(error as Error);
  const fields = error as Record<string, unknown> | null;
  if (typeof fields?.code !== 'string' || !SQLSTATE.test(fields.code)) return serialized;
  const safe: Record<string, unknown> = {
    type: serialized.type,
    message: `database error ${fields.code}`,
    stack: (serialized.stack ?? '')
      .split('\n')
      .filter((line) => line.trim().startsWith('at '))
      .join('\n'),
  };
  for (const name of DATABASE_ERROR_FIELDS) if (fields[name] !== undefined) safe[name] = fields[name];
  return safe;
}

/** The process logger: JSON lines; credentials are redacted wherever they appear, database errors without values. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // graphile-worker passes a failed job's error as `error`.
      serializers: { err: serializeError, error: serializeError },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          '*.password',
          '*.key',
          '*.access_token',
          '*.refresh_token',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
