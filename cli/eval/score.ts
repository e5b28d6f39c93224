/** The RCA's sections, as templates/investigate.jinja2 asks for them. */
export const RCA_SECTIONS = ['Alert explanation', 'Key findings', 'Root cause', 'Next steps'] as const;

export interface FactVerdict {
  fact: string;
  present: boolean;
  /** The judge's reasoning (LLM judge), or how the fact was matched. */
  reasoning: string;
}

/** Lower case, markdown emphasis and code marks dropped, whitespace runs made one space. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim();
}

/** `--judge contains`: each fact must appear in the answer as written (case and whitespace aside). */
export function judgeContains(answer: string, facts: string[]): FactVerdict[] {
  const text = normalise(answer);
  return facts.map((fact) => {
    const present = text.includes(normalise(fact));
    return { fact, present, reasoning: present ? 'found in the answer' : 'not found in the answer (contains)' };
  });
}

/** Which of the four sections the answer has as headings (any level). */
export function sectionsPresent(answer: string): string[] {
  return RCA_SECTIONS.filter((s) => new RegExp(`^\\s{0,3}#{1,6}\\s*${s.replace(/ /g, '\\s+')}\\b`, 'im').test(answer));
}

/** The text under the findings and root-cause headings (the claims); the whole answer when it has neither. */
function claims(answer: string): string {
  const parts = answer.split(/^\s{0,3}#{1,6}\s*/m);
  const picked = parts.filter((p) => /^(key findings|root cause)/i.test(p));
  return picked.length ? picked.join('\n') : answer;
}

/**
 * Tokens a finding cites as evidence: code spans, and words carrying a digit, dot, dash, slash or
 * underscore (pod names, versions, numbers, metric names), at least 3 characters long.
 */
export function evidenceTokens(answer: string): string[] {
  const text = claims(answer);
  const spans = [...text.matchAll(/`([^`\n]{3,80})`/g)].map((m) => m[1]!.trim());
  const words = [...text.matchAll(/[A-Za-z0-9][\w.:/%-]*[\d._/-][\w.:/%-]*/g)]
    .map((m) => m[0].replace(/[.:/-]+$/, ''))
    .filter((w) => w.length >= 3);
  return [...new Set([...spans, ...words])];
}

export interface Evidence {
  /** Evidence-like tokens in the findings and root cause. */
  checked: number;
  /** Of those, the ones some tool output contains. */
  cited: number;
  examples: string[];
}

/** Whether the findings cite what the tools returned: their names and numbers found in the outputs. */
export function citedEvidence(answer: string, toolOutputs: string[]): Evidence {
  const haystack = toolOutputs.join('\n').toLowerCase();
  const tokens = evidenceTokens(answer);
  const cited = tokens.filter((t) => haystack.includes(t.toLowerCase()));
  return { checked: tokens.length, cited: cited.length, examples: cited.slice(0, 5) };
}

/** The text under each markdown heading of the answer, by the heading's title (trimmed). */
export function answerSections(answer: string): Map<string, string> {
  const out = new Map<string, string>();
  let title: string | null = null;
  for (const line of answer.split('\n')) {
    const h = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      title = h[1]!.replace(/[*_`]/g, '').trim();
      out.set(title, '');
    } else if (title !== null) out.set(title, `${out.get(title)}${line}\n`);
  }
  return out;
}

/**
 * HolmesGPT's expected_sections: a section given a list must be in the answer and hold each text (as their
 * runner asserts); true asks only that it is there; false or an empty list asks nothing. Returns why not.
 */
export function expectedSectionsMissing(answer: string, expected: Record<string, string[] | boolean | null>): string[] {
  const sections = answerSections(answer);
  const reasons: string[] = [];
  for (const [title, want] of Object.entries(expected)) {
    if (!want || (Array.isArray(want) && want.length === 0)) continue;
    const text = sections.get(title);
    if (text === undefined) {
      reasons.push(`missing section: ${title}`);
      continue;
    }
    for (const fact of Array.isArray(want) ? want : []) {
      if (!normalise(text).includes(normalise(fact))) reasons.push(`missing in section ${title}: ${fact}`);
    }
  }
  return reasons;
}
