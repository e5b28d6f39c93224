import { isWellFormed } from '../text.js';

/**
 * Redis keeps bytes and ioredis sends strings as UTF-8, where a lone UTF-16 surrogate (valid in
 * JSON and in JS strings) becomes U+FFFD. Record fields are stored so they read back exactly:
 * well-formed text as is, anything else as a marker plus its JSON form (pure ASCII escapes).
 */
const MARK = '\u0000';

export function encodeField(s: string): string {
  return isWellFormed(s) && !s.startsWith(MARK) ? s : MARK + JSON.stringify(s);
}

export function decodeField(s: string): string;
export function decodeField(s: string | null | undefined): string | undefined;
export function decodeField(s: string | null | undefined): string | undefined {
  if (s === null || s === undefined) return undefined;
  if (!s.startsWith(MARK)) return s;
  try {
    const v: unknown = JSON.parse(s.slice(1));
    return typeof v === 'string' ? v : s;
  } catch {
    return s;
  }
}

/** Bytes that stand for the string one-to-one: UTF-8 when it has one, else 0xFF (never in UTF-8) + UTF-16. */
export function losslessBytes(s: string): Buffer {
  return isWellFormed(s) ? Buffer.from(s, 'utf8') : Buffer.concat([Buffer.from([0xff]), Buffer.from(s, 'utf16le')]);
}
