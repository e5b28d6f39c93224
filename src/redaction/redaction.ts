import type { RedactionState } from '../records/redaction-state.js';
import type { Detector } from './detectors.js';

/** Where placeholders may be mapped back to the values (`redaction.restoreIn`); anywhere else they stay. */
export const RESTORE_PLACES = ['dashboard', 'api', 'cli', 'destinations', 'tickets'] as const;
export type RestorePlace = (typeof RESTORE_PLACES)[number];

/** The compiled `redaction` config: what the door replaces, and where placeholders are mapped back. */
export interface RedactionRules {
  /** Operators' patterns first, then the built-in detectors switched on. */
  detectors: Detector[];
  restoreIn: ReadonlySet<RestorePlace>;
}

/** A placeholder anywhere in text: never redacted again, and what is mapped back. */
const PLACEHOLDER = /<[a-z][a-z0-9_-]{0,40}-\d{1,6}>/g;
/** The same, capturing, to split text into placeholders (odd indices) and the text between them. */
const SPLIT = /(<[a-z][a-z0-9_-]{0,40}-\d{1,6}>)/;

/**
 * One investigation's redaction: each private value found gets a placeholder (`<email-1>`, `<ip-3>`) that stays
 * the same for the whole investigation, whichever message or step the value turns up in, so the model can still
 * reason about "the same address". The numbering lives in `state` (the loop state's `redaction`, checkpointed).
 */
export class Redaction {
  private readonly byValue = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  /** Texts already redacted, as the whole conversation is redacted again at every step. */
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly rules: RedactionRules,
    private readonly state: RedactionState,
    /** Told of each new value (the metric lestrade_redactions_total). */
    private readonly onNew: (kind: string) => void = () => {},
  ) {
    for (const [placeholder, value] of Object.entries(state.placeholders)) {
      this.byValue.set(value, placeholder);
      const kind = placeholder.slice(1, placeholder.lastIndexOf('-'));
      const n = Number(placeholder.slice(placeholder.lastIndexOf('-') + 1, -1));
      this.counts.set(kind, Math.max(this.counts.get(kind) ?? 0, n));
    }
  }

  /** The text with every private value replaced by its placeholder; placeholders already in it are left alone. */
  text(text: string): string {
    const known = this.seen.get(text);
    if (known !== undefined) return known;
    let out = text;
    for (const detector of this.rules.detectors) out = this.apply(out, detector);
    if (text.length > 64) this.seen.set(text, out);
    return out;
  }

  /** Every string inside a JSON-like value, redacted (keys and structure kept). */
  deep<T>(value: T): T {
    return mapStrings(value, (s) => this.text(s)) as T;
  }

  /** JSON text redacted value by value (so a value is found whatever its escaping), else as text. */
  json(text: string): string {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return this.text(text);
    }
    if (!doc || typeof doc !== 'object') return this.text(text);
    const redacted = this.deep(doc);
    return JSON.stringify(redacted) === JSON.stringify(doc) ? text : JSON.stringify(redacted);
  }

  /** The placeholders in text mapped back to their values (those this investigation made; others stay). */
  restore(text: string): string {
    return restoreWith(this.state, text);
  }

  /** Each of the detector's patterns over the text between placeholders (never inside one, not even a new one). */
  private apply(text: string, detector: Detector): string {
    let out = text;
    for (const pattern of detector.patterns) {
      const parts = out.split(SPLIT);
      for (let i = 0; i < parts.length; i += 2)
        parts[i] = parts[i]!.replace(pattern, (m) => this.replaceOne(m, detector));
      out = parts.join('');
    }
    return out;
  }

  private replaceOne(value: string, detector: Detector): string {
    if (!value || (detector.valid && !detector.valid(value))) return value;
    const known = this.byValue.get(value);
    if (known) return known;
    const n = (this.counts.get(detector.kind) ?? 0) + 1;
    this.counts.set(detector.kind, n);
    const placeholder = `<${detector.kind}-${n}>`;
    this.byValue.set(value, placeholder);
    this.state.placeholders[placeholder] = value;
    this.onNew(detector.kind);
    return placeholder;
  }
}

/** The placeholders in text mapped back through an investigation's state (unknown ones stay as written). */
export function restoreWith(state: RedactionState | undefined, text: string): string {
  const map = state?.placeholders;
  if (!map || !text) return text;
  return text.replace(PLACEHOLDER, (p) => (Object.hasOwn(map, p) ? map[p]! : p));
}

/** Every string inside a JSON-like value with its placeholders mapped back (a tool call's arguments). */
export function restoreDeep<T>(state: RedactionState | undefined, value: T): T {
  if (!state || !Object.keys(state.placeholders).length) return value;
  return mapStrings(value, (s) => restoreWith(state, s)) as T;
}

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    // Object.fromEntries defines keys as data, so a "__proto__" key stays a key.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}
