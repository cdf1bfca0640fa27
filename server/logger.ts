import pino, { type Logger } from 'pino';

export type { Logger };

/** The process logger: JSON lines; credentials are redacted wherever they appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
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
  });
}
