import { adfToPlainText } from './render-adf.js';

/**
 * The plain text of a rich-text value: ADF on Cloud API v3, wiki markup (kept as written) on
 * Data Center and in many webhook deliveries, null for an empty field.
 */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return adfToPlainText(value);
}
