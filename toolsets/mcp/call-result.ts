import type { ToolOutput } from '../../src/tools/types.js';

/** One content block of an MCP tool result (text, image, audio, resource, resource_link). */
export interface McpContent {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  /** The pre-2024-11 form some servers still send. */
  toolResult?: unknown;
}

/** One block as text: text as is, an embedded text resource with its URI, media and blobs dropped with a note. */
function blockText(block: McpContent): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type} (${block.mimeType ?? 'unknown type'}) dropped: Lestrade passes text only]`;
    case 'resource': {
      const r = block.resource ?? {};
      if (typeof r.text === 'string') return `resource ${r.uri ?? ''}:\n${r.text}`;
      return `[binary resource ${r.uri ?? ''} (${r.mimeType ?? 'unknown type'}) dropped: Lestrade passes text only]`;
    }
    case 'resource_link':
      return `[resource link: ${block.uri ?? ''}${block.name ? ` (${block.name})` : ''}]`;
    default:
      return `[content of type ${block.type} dropped]`;
  }
}

/** An MCP tool result as a Lestrade tool output: `isError` an error, nothing at all "no data". */
export function toToolOutput(result: McpCallResult): ToolOutput {
  const blocks = result.content ?? [];
  let text = blocks.map(blockText).join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text && result.toolResult !== undefined) text = JSON.stringify(result.toolResult);
  if (result.isError) return { status: 'error', error: text || 'the MCP server reported an error without text' };
  return text.trim() ? { status: 'success', data: text } : { status: 'no_data', message: 'the tool returned nothing' };
}
