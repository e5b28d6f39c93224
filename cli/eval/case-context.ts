import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { InputError } from '../../src/errors.js';

/** Text a HolmesGPT case hands the model beside its question or alert, labelled by where it came from. */
export interface ContextItem {
  label: string;
  text: string;
}

/** What test_case.yaml says about attached files and runbooks (HolmesGPT's keys). */
export interface ContextKeys {
  include_files?: string[] | null;
  runbooks?: { catalog?: Array<Record<string, unknown>> } | null;
}

/**
 * The context HolmesGPT's runner adds to the prompt, from the case folder: issue_data.json (its issue's
 * extra context), resource_instructions.json (instructions and documents to check), each `include_files` file
 * and each runbook of a `runbooks.catalog` (their `path` or `link` in the folder). Here they are third-party
 * text inside the prompt's fence, labelled by file: a case cannot hand the model instructions with more
 * authority than a ticket has.
 */
export function caseContext(folder: string, keys: ContextKeys): ContextItem[] {
  const items: ContextItem[] = [];
  const issueData = readIfThere(folder, 'issue_data.json');
  if (issueData !== null && issueData.trim() !== '{}') {
    items.push({ label: 'Context from the issue (issue_data.json)', text: issueData.trim() });
  }
  const instructions = resourceInstructions(folder);
  if (instructions) items.push({ label: 'Instructions to check for this resource', text: instructions });
  const history = conversationHistory(folder);
  if (history) items.push({ label: 'Earlier in this conversation (conversation_history)', text: history });
  for (const f of keys.include_files ?? []) {
    items.push({ label: `Attached file ${f}`, text: mustRead(folder, f, 'include_files') });
  }
  for (const rb of keys.runbooks?.catalog ?? []) {
    const file = [rb.path, rb.link].find((v): v is string => typeof v === 'string');
    if (!file || /^[a-z]+:\/\//i.test(file)) continue;
    const title = [rb.name, rb.description].filter((v) => typeof v === 'string').join(': ');
    items.push({ label: `Runbook ${file}${title ? ` (${title})` : ''}`, text: mustRead(folder, file, 'runbooks') });
  }
  return items;
}

/**
 * HolmesGPT's conversation history: a `conversation_history/` folder of `NN_role.md` files, else a
 * `conversation_history.json` list of `{role, content}`. The user's and assistant's turns, as a transcript (the
 * system prompt is ours; tool turns, whose calls are not replayed, are left out).
 */
function conversationHistory(folder: string): string | null {
  const dir = join(folder, 'conversation_history');
  let turns: Array<{ role: string; content: string }> = [];
  if (existsSync(dir) && statSync(dir).isDirectory()) {
    turns = readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => ({
        role: f.slice(0, -3).split('_').slice(1).join('_'),
        content: readFileSync(join(dir, f), 'utf8'),
      }));
  } else {
    const text = readIfThere(folder, 'conversation_history.json');
    if (text === null) return null;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new InputError(
        '',
        `${join(folder, 'conversation_history.json')}: not valid JSON (${(err as Error).message})`,
      );
    }
    if (!Array.isArray(doc))
      throw new InputError('', `${join(folder, 'conversation_history.json')}: expected a list of {role, content}`);
    turns = doc.filter(
      (m): m is { role: string; content: string } =>
        Boolean(m) &&
        typeof (m as { role?: unknown }).role === 'string' &&
        typeof (m as { content?: unknown }).content === 'string',
    );
  }
  const said = turns.filter((t) => (t.role === 'user' || t.role === 'assistant') && t.content.trim() !== '');
  return said.length ? said.map((t) => `${t.role}: ${t.content.trim()}`).join('\n\n') : null;
}

/** HolmesGPT's ResourceInstructions: `instructions` bullets and documents to fetch, as its prompt words them. */
function resourceInstructions(folder: string): string | null {
  const text = readIfThere(folder, 'resource_instructions.json');
  if (text === null) return null;
  let doc: { instructions?: unknown; documents?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (err) {
    throw new InputError(
      '',
      `${join(folder, 'resource_instructions.json')}: not valid JSON (${(err as Error).message})`,
    );
  }
  const bullets = [
    ...(Array.isArray(doc.instructions) ? doc.instructions.filter((s): s is string => typeof s === 'string') : []),
    ...(Array.isArray(doc.documents) ? doc.documents : [])
      .map((d) => (d as { url?: unknown }).url)
      .filter((u): u is string => typeof u === 'string')
      .map((u) => `fetch information from this URL: ${u}`),
  ].filter((s) => s.trim() !== '');
  return bullets.length ? bullets.map((b) => `* ${b}`).join('\n') : null;
}

function readIfThere(folder: string, name: string): string | null {
  const path = join(folder, name);
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

/** A file the case names, inside its folder (a path leaving it is refused). */
function mustRead(folder: string, name: string, key: string): string {
  const rel = normalize(name);
  if (isAbsolute(rel) || rel.startsWith('..')) {
    throw new InputError('', `${join(folder, 'test_case.yaml')}: ${key}: ${name} is outside the case folder`);
  }
  const text = readIfThere(folder, rel);
  if (text === null)
    throw new InputError('', `${join(folder, 'test_case.yaml')}: ${key}: ${name} does not exist in the case folder`);
  return text;
}
