import { pino, type DestinationStream, type Logger } from 'pino';

/** Paths pino blanks out wherever they appear, so secrets never reach logs. */
export const REDACT_PATHS = [
  'apiKey', '*.apiKey', '*.*.apiKey',
  'password', '*.password', '*.*.password', '*.*.*.password',
  'bearerToken', '*.bearerToken', '*.*.bearerToken',
  'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization',
  'token', '*.token', '*.apiToken', '*.*.apiToken',
];

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'lestrade' } }, destination);
}
