import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { noSecrets, redactUrlsIn, type Redactor } from './redact.js';

/** Paths pino blanks out wherever they appear, so secrets never reach logs. */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'password',
  '*.password',
  '*.*.password',
  '*.*.*.password',
  'bearerToken',
  '*.bearerToken',
  '*.*.bearerToken',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'token',
  '*.token',
  '*.apiToken',
  '*.*.apiToken',
];

export type { Logger };

/** `auto`: readable lines on a terminal, JSON (one object a line) when piped or in a container. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Secrets are kept out twice: by path (apiKey, password, ... fields), and by value: every line
 * written passes through `redact` (the configuration's secrets, src/config/secrets.ts) and has
 * URL passwords blanked, whatever message or error quoted them. Both happen before the pretty
 * formatting, which only sees the redacted line.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  redact: Redactor = noSecrets,
  format: LogFormat = 'auto',
): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'lestrade' },
      hooks: { streamWrite: (line) => redactUrlsIn(redact(line)) },
    },
    destination ?? defaultDestination(format),
  );
}

/** Whether a logger made with this format (and no destination of its own) writes readable lines rather than JSON. */
export function isPrettyFormat(format: LogFormat): boolean {
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

function defaultDestination(format: LogFormat): DestinationStream | undefined {
  if (!isPrettyFormat(format)) return undefined;
  // Local time to the millisecond, no epoch numbers; pid, host and service say nothing on a terminal.
  return PinoPretty({ translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname,service', sync: true });
}
