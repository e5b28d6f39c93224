/** Which tiktoken encoding and context window a model name implies. */
export interface ModelProfile {
  encoding: 'o200k_base' | 'cl100k_base';
  windowTokens: number;
}

/**
 * By name prefix, first match wins. Servers other than OpenAI's (vLLM, Ollama) have their own
 * tokenizers: o200k_base counts them closely enough to budget with, and llm.contextWindow says
 * the real window. Unknown models get 128k, today's common size.
 */
const FAMILIES: Array<[RegExp, ModelProfile]> = [
  [/^gpt-4\.1/, { encoding: 'o200k_base', windowTokens: 1_047_576 }],
  [/^gpt-5/, { encoding: 'o200k_base', windowTokens: 400_000 }],
  [/^(o1|o3|o4)(-|$)/, { encoding: 'o200k_base', windowTokens: 200_000 }],
  [/^(gpt-4o|chatgpt-4o|gpt-4\.5|gpt-oss)/, { encoding: 'o200k_base', windowTokens: 128_000 }],
  [/^gpt-4-turbo|^gpt-4-\d{4}-preview/, { encoding: 'cl100k_base', windowTokens: 128_000 }],
  [/^gpt-4-32k/, { encoding: 'cl100k_base', windowTokens: 32_768 }],
  [/^gpt-4/, { encoding: 'cl100k_base', windowTokens: 8_192 }],
  [/^gpt-3\.5/, { encoding: 'cl100k_base', windowTokens: 16_385 }],
  [/claude/, { encoding: 'o200k_base', windowTokens: 200_000 }],
  [/gemini/, { encoding: 'o200k_base', windowTokens: 1_000_000 }],
];

const DEFAULT: ModelProfile = { encoding: 'o200k_base', windowTokens: 128_000 };

export function modelProfile(model: string): ModelProfile {
  // Provider prefixes ("openai/gpt-4o", "azure/gpt-4o") name the same model.
  const name = model.toLowerCase().split('/').at(-1) ?? '';
  return FAMILIES.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT;
}
