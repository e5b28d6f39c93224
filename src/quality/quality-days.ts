import { InputError } from '../errors.js';

/** The longest window the quality figures read (the records' retention bounds it anyway). */
export const MAX_QUALITY_DAYS = 365;
export const DEFAULT_QUALITY_DAYS = 30;

/** `days` of a query: a whole number from 1 to MAX_QUALITY_DAYS, 30 when absent; anything else is an InputError naming it. */
export function parseDays(query: Record<string, unknown>): number {
  const raw = query.days;
  if (raw === undefined) return DEFAULT_QUALITY_DAYS;
  const n = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_QUALITY_DAYS)) {
    const shown = typeof raw === 'string' ? `"${raw.slice(0, 32)}"` : 'a repeated value';
    throw new InputError('days', `${shown} is not a whole number of days from 1 to ${MAX_QUALITY_DAYS} (e.g. days=30)`);
  }
  return n;
}
