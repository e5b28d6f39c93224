import { pino, type DestinationStream, type Logger } from 'pino';
import { noSecrets, redactUrlsIn, type Redactor } from './redact.js';

/** Paths pino blanks out wherever they appear, so secrets never reach logs. */
export const REDACT_PATHS = [
  'apiKey', '*.apiKey', '*.*.apiKey',
  'password', '*.password', '*.*.password', '*.*.*.password',
  'bearerToken', '*.bearerToken', '*.*.bearerToken',
  'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization',
  'token', '*.token', '*.apiToken', '*.*.apiToken',
];

export type { Logger };

/**
 * Secrets are kept out twice: by path (apiKey, password, ... fields), and by value: every line
 * written passes through `redact` (the configuration's secrets, src/config/secrets.ts) and has
 * URL passwords blanked, whatever message or error quoted them.
 */
export function createLogger(level: string, destination?: DestinationStream, redact: Redactor = noSecrets): Logger {
  return pino({
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'lestrade' },
    hooks: { streamWrite: (line) => redactUrlsIn(redact(line)) },
  }, destination);
}
