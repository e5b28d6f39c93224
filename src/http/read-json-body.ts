import { InputError } from '../errors.js';

/** Parses a raw body (kept raw so signatures can be checked first); InputError when it is not JSON. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new InputError('', 'request body is empty; expected JSON');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InputError('', `request body is not valid JSON: ${(err as Error).message}`);
  }
}
