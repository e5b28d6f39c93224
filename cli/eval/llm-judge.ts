import { randomBytes } from 'node:crypto';
import nunjucks from 'nunjucks';
import type OpenAI from 'openai';
import { BUILTIN_TEMPLATES_DIR } from '../../src/prompts/prompt-renderer.js';
import type { FactVerdict } from './score.js';

export const JUDGE_TEMPLATE = 'eval-judge.jinja2';

export interface JudgeUsage {
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

/**
 * The LLM judge: one request per expected fact (a fact judged alone is judged better than a list),
 * the template from the user's templates folder first, else the built-in; the judge's reasoning is
 * kept. A reply that is not the JSON asked for counts the fact as absent, saying so.
 */
export class LlmJudge {
  private readonly env: nunjucks.Environment;

  constructor(
    private readonly client: OpenAI,
    private readonly model: string,
    templatesDir?: string,
  ) {
    const dirs = templatesDir ? [templatesDir, BUILTIN_TEMPLATES_DIR] : [BUILTIN_TEMPLATES_DIR];
    this.env = new nunjucks.Environment(new nunjucks.FileSystemLoader(dirs), { autoescape: false });
  }

  async judge(answer: string, facts: string[], usage: JudgeUsage): Promise<FactVerdict[]> {
    return Promise.all(facts.map((fact) => this.one(answer, fact, usage)));
  }

  private async one(answer: string, fact: string, usage: JudgeUsage): Promise<FactVerdict> {
    const fence = randomBytes(6).toString('hex');
    const content = this.env.render(JUDGE_TEMPLATE, { answer: answer.replaceAll(fence, ''), fact, fence });
    const res = await this.client.chat.completions.create({
      model: this.model,
      messages: [{ role: 'user', content }],
      temperature: 0,
    });
    usage.calls += 1;
    usage.promptTokens += res.usage?.prompt_tokens ?? 0;
    usage.completionTokens += res.usage?.completion_tokens ?? 0;
    return { fact, ...parseVerdict(res.choices[0]?.message.content ?? '') };
  }
}

/** The judge's JSON (also inside a code fence or after some words); anything else is "absent", quoted. */
export function parseVerdict(reply: string): { present: boolean; reasoning: string } {
  const json = /\{[\s\S]*\}/.exec(reply)?.[0];
  try {
    const v = JSON.parse(json ?? '') as { present?: unknown; reasoning?: unknown };
    if (typeof v.present === 'boolean') {
      return { present: v.present, reasoning: typeof v.reasoning === 'string' ? v.reasoning : '' };
    }
  } catch {
    // Not JSON: reported below as a judge failure, which fails the fact.
  }
  return { present: false, reasoning: `judge reply was not {"reasoning", "present"} JSON: ${reply.slice(0, 200)}` };
}
