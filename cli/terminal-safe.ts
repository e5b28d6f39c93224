/**
 * Control characters out of untrusted text (the model's RCA, ticket text, tool output) before it
 * reaches a terminal: an escape sequence in it could move the cursor, retitle the window or hide lines.
 */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
}
