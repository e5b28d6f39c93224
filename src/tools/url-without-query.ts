/**
 * http(s)://host/path?query#fragment anywhere in text → http(s)://host/path: for messages that quote a
 * URL (a prerequisite's, a client's), since a token rendered from the environment may ride in its query.
 */
export function withoutUrlQueries(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)[?#][^\s"'<>]*/gi, '$1');
}
