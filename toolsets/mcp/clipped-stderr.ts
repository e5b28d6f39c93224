import type { Readable } from 'node:stream';
import type { Logger } from '../../src/log.js';

const LINE_CHARS = 500;
const KEPT_CHARS = 2_000;

/**
 * A stdio server's stderr: each line logged (clipped to 500 characters) with the server's name, and
 * the last 2,000 characters kept to explain why it exited.
 */
export class ClippedStderr {
  private tail = '';
  private partial = '';

  constructor(
    private readonly server: string,
    private readonly log: Logger,
  ) {}

  attach(stream: Readable | null): void {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => this.take(chunk));
  }

  last(): string {
    return this.tail.trim();
  }

  private take(chunk: string): void {
    this.tail = (this.tail + chunk).slice(-KEPT_CHARS);
    const lines = (this.partial + chunk).split('\n');
    this.partial = (lines.pop() ?? '').slice(-LINE_CHARS);
    for (const line of lines) {
      if (!line.trim()) continue;
      const clipped = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}… (${line.length} chars)` : line;
      this.log.warn({ mcpServer: this.server, stderr: clipped }, 'MCP server stderr');
    }
  }
}
