import { splitTokens } from '../check-credentials.js';
import { createRedactor, type Redactor } from '../redact.js';
import type { Config } from './schema.js';

/** Keys whose values are secrets, wherever they sit in the configuration tree. */
// webhookUrl: a Teams Workflows URL carries its own signature (sig=…) and is as good as a password.
const SECRET_KEY = /(api)?key$|token|password|passphrase|secret|credential|authorization|^pat$|^webhookUrl$/i;

/**
 * Every secret the validated configuration holds: values under secret-looking keys (apiKey,
 * apiToken, bearerToken, password, ...; comma-separated token lists one by one), every HTTP
 * header value (they carry credentials), and the password of every URL. New config keys are
 * covered by their names, without a list to keep up to date.
 */
export function configSecrets(config: Config): string[] {
  const out = new Set<string>();
  const visit = (value: unknown, key: string, underHeaders: boolean): void => {
    if (typeof value === 'string') {
      if (SECRET_KEY.test(key) || underHeaders) {
        out.add(value);
        for (const t of splitTokens(value)) out.add(t);
        // "Bearer xyz", "Basic base64": the credential without its scheme too.
        const scheme = /^\S+\s+(\S+)$/.exec(value.trim());
        if (scheme) out.add(scheme[1]!);
      }
      for (const p of urlPasswords(value)) out.add(p);
      return;
    }
    if (Array.isArray(value)) {
      for (const v of value) visit(v, key, underHeaders);
      return;
    }
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k, underHeaders || /headers$/i.test(key));
    }
  };
  visit(config, '', false);
  return [...out];
}

/** The one redactor built from the configuration: applied to what is stored, logged and printed. */
export function redactorFromConfig(config: Config): Redactor {
  return createRedactor(configSecrets(config));
}

/** A URL's password as written and decoded. */
function urlPasswords(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) return [];
  try {
    const { password } = new URL(value);
    if (!password) return [];
    try {
      return [password, decodeURIComponent(password)];
    } catch {
      return [password];
    }
  } catch {
    // Not a WHATWG URL (redis+cluster://user:password@a:1,b:2): the userinfo's password as written.
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:([^@]*)@/i.exec(value);
    if (!m?.[1]) return [];
    try {
      return [m[1], decodeURIComponent(m[1])];
    } catch {
      return [m[1]];
    }
  }
}
