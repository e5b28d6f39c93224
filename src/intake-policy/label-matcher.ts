import { ConfigError } from '../errors.js';

/** One Alertmanager-style matcher: name=value, name!=value, name=~regex, name!~regex (regexes anchored). */
export interface LabelMatcher {
  name: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
  regex?: RegExp;
}

const MATCHER = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|([^"\s]*))\s*$/;

/** Parses `severity="info"`, `alertname=~"Watchdog|InfoInhibitor"`; `where` names the config key in errors. */
export function parseMatcher(text: string, where: string): LabelMatcher {
  const m = MATCHER.exec(text);
  if (!m)
    throw new ConfigError(
      `${where}: "${text}" is not a matcher like severity="info" or alertname=~"Watchdog|InfoInhibitor"`,
    );
  const op = m[2] as LabelMatcher['op'];
  const value = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : (m[4] ?? '');
  if (op === '=~' || op === '!~') {
    try {
      return { name: m[1]!, op, value, regex: new RegExp(`^(?:${value})$`, 'u') };
    } catch (err) {
      throw new ConfigError(`${where}: bad regular expression in "${text}": ${(err as Error).message}`);
    }
  }
  return { name: m[1]!, op, value };
}

/** A missing label matches as the empty string, as in Alertmanager. Own keys only. */
export function matches(m: LabelMatcher, labels: Record<string, string>): boolean {
  const v = Object.hasOwn(labels, m.name) ? labels[m.name]! : '';
  switch (m.op) {
    case '=':
      return v === m.value;
    case '!=':
      return v !== m.value;
    case '=~':
      return m.regex!.test(v);
    case '!~':
      return !m.regex!.test(v);
  }
}
