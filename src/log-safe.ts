/**
 * Vendor strings (group keys, label values, field names) can be as long as a request body.
 * What is logged of them is capped, so one delivery cannot flood the log.
 */
export function clip(s: string, max = 200): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max)}…[${s.length - max} more characters]`;
}
