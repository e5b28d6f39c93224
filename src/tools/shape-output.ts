/** Turns tool data into the text the model reads, capped so one noisy tool cannot flood the context. */
export function shapeOutput(data: unknown, maxChars: number): { text: string; truncated: boolean } {
  const text = typeof data === 'string' ? data : JSON.stringify(data, null, 1);
  if (text.length <= maxChars) return { text, truncated: false };
  const dropped = text.length - maxChars;
  return { text: `${text.slice(0, maxChars)}\n…[truncated ${dropped} characters]`, truncated: true };
}
