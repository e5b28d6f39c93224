import { InputError } from '../errors.js';
import {
  identifyingLabelsOf,
  MAX_ROOT_CAUSE_CHARS,
  MAX_TITLE_CHARS,
  type MemoryRecord,
  type Verdict,
} from './memory-record.js';

const VERDICTS: readonly string[] = ['correct', 'partly', 'wrong'];
/** The longest label value kept; identifying values are names, never long. */
const MAX_LABEL_CHARS = 200;

export function isVerdict(value: unknown): value is Verdict {
  return typeof value === 'string' && VERDICTS.includes(value);
}

/** Cuts text to `max` characters without splitting a surrogate pair, marking the cut with "…". */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * A record as stored: required fields checked (InputError naming the field), only identifying
 * labels, title and root cause clipped, fields in one order (so an unchanged record is the same JSON).
 */
export function normaliseRecord(rec: MemoryRecord, labelNames: readonly string[]): MemoryRecord {
  for (const field of ['investigationId', 'source', 'fingerprint'] as const) {
    if (typeof rec[field] !== 'string' || rec[field].trim() === '')
      throw new InputError(field, 'must be a non-empty string');
  }
  if (Number.isNaN(Date.parse(rec.at))) throw new InputError('at', `"${rec.at}" is not an ISO time`);
  if (rec.verdict !== null && !isVerdict(rec.verdict))
    throw new InputError('verdict', 'must be correct, partly, wrong or null');
  if (rec.rootCauseBy !== 'person' && rec.rootCauseBy !== 'rca')
    throw new InputError('rootCauseBy', 'must be person or rca');
  const labels = identifyingLabelsOf(rec.labels ?? {}, labelNames);
  for (const name of Object.keys(labels)) labels[name] = clip(labels[name]!, MAX_LABEL_CHARS);
  return {
    investigationId: rec.investigationId,
    source: rec.source,
    fingerprint: rec.fingerprint,
    ...(rec.locatorKey ? { locatorKey: rec.locatorKey } : {}),
    ...(rec.groupKey ? { groupKey: rec.groupKey } : {}),
    ...(rec.alertName ? { alertName: rec.alertName } : {}),
    labels,
    title: clip(rec.title ?? '', MAX_TITLE_CHARS),
    rootCause: clip((rec.rootCause ?? '').trim(), MAX_ROOT_CAUSE_CHARS),
    rootCauseBy: rec.rootCauseBy,
    verdict: rec.verdict,
    ...(rec.confirmedBy ? { confirmedBy: rec.confirmedBy } : {}),
    at: new Date(Date.parse(rec.at)).toISOString(),
  };
}
