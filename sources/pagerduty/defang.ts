import { linkedHosts } from '../../src/render/sanitize-markdown.js';

const URL_LIKE = /\bhttps?:\/\/[^\s<>"'`)\]}|\\]+|\bwww\.[^\s<>"'`)\]}|\\]+/gi;

function hostOf(match: string): string | null {
  try {
    return new URL(/^www\./i.test(match) ? `http://${match}` : match).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * PagerDuty shows a note as plain text, where a URL can become a clickable link: a URL the sanitizer
 * left as inert Markdown (in a code span or block: a host neither the issue nor a tool result
 * vouched for) would be a live link there. Those are defanged (`hxxps://`, `www[.]`); links to
 * hosts the Markdown still links to, which the sanitizer allowed, stay as they are. Pure.
 */
export function defangUnvouchedUrls(text: string): string {
  const vouched = linkedHosts(text);
  return text.replace(URL_LIKE, (m) => {
    const host = hostOf(m);
    if (host && vouched.has(host)) return m;
    return /^www\./i.test(m) ? m.replace(/^www\./i, 'www[.]') : m.replace(/^http/i, 'hxxp');
  });
}
