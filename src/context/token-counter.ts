import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

interface Encoding {
  countTokens(text: string, opts: { disallowedSpecial: Set<string> }): number;
  encode(text: string, opts: { disallowedSpecial: Set<string> }): number[];
  decode(tokens: number[]): string;
}

/** Special-token text inside data (<|endoftext|>) is just text. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Runs this long without whitespace are counted in slices: BPE on one huge piece is quadratic. */
const SLICE = 256;
/** Per-message framing tokens (role, separators), as OpenAI documents for chat models. */
const PER_MESSAGE = 4;

/**
 * Counts tokens with tiktoken's encodings (gpt-tokenizer, pure JS). Long whitespace-free runs
 * (base64, minified JSON) are counted slice by slice, which can only over-count slightly.
 */
export class TokenCounter {
  private readonly cache = new Map<string, number>();

  private constructor(private readonly enc: Encoding) {}

  static async load(encoding: 'o200k_base' | 'cl100k_base'): Promise<TokenCounter> {
    const enc =
      encoding === 'o200k_base'
        ? await import('gpt-tokenizer/encoding/o200k_base')
        : await import('gpt-tokenizer/encoding/cl100k_base');
    return new TokenCounter(enc);
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    const cached = this.cache.get(text);
    if (cached !== undefined) return cached;
    let n = 0;
    for (const part of text.split(/(\S{256,})/)) {
      if (part.length >= SLICE && !/\s/.test(part))
        for (let i = 0; i < part.length; i += SLICE) n += this.enc.countTokens(part.slice(i, i + SLICE), AS_TEXT);
      else n += this.enc.countTokens(part, AS_TEXT);
    }
    if (this.cache.size > 2_000) this.cache.clear();
    this.cache.set(text, n);
    return n;
  }

  /** The first `tokens` tokens of the text (whole characters; a long text is cut roughly first). */
  head(text: string, tokens: number): string {
    const rough = text.slice(0, tokens * 8);
    const ids = this.enc.encode(rough, AS_TEXT);
    return ids.length <= tokens ? rough : this.enc.decode(ids.slice(0, tokens)).replace(/\uFFFD+$/, '');
  }

  /** What a request costs: each message with its framing and tool calls, plus the tool schemas. */
  conversation(messages: ChatCompletionMessageParam[], tools: ChatCompletionTool[] = []): number {
    let n = 3;
    for (const m of messages) {
      n += PER_MESSAGE + this.count(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));
      if (m.role === 'assistant') for (const c of m.tool_calls ?? []) n += PER_MESSAGE + this.count(JSON.stringify(c));
    }
    return n + (tools.length ? this.count(JSON.stringify(tools)) : 0);
  }
}
