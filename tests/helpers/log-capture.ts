import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

/** A logger whose JSON lines are kept, parsed, in `lines`, for tests that read what was logged. */
export function captureLog(level: 'debug' | 'info' = 'debug'): { lines: Array<Record<string, unknown>>; log: Logger } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, log: createLogger(level, sink) };
}
