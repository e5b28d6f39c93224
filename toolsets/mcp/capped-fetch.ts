import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The JSON-RPC error code Lestrade answers a request with when its server's answer was too large to read. */
export const RESULT_TOO_LARGE = -32_001;

/**
 * A fetch for the MCP SDK's HTTP transports that never holds more than `maxBytes` of one message: a JSON
 * body, or one event of an SSE stream, is passed on only when whole and within the cap. Past the cap the
 * rest is not read: a POST's answer becomes a JSON-RPC error for its request (the model reads why and the
 * setting to change); on the long-lived GET stream the event is skipped up to the next one.
 */
export function cappedFetch(maxBytes: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const res = await base(url, init);
    if (!res.body) return res;
    const sse = /text\/event-stream/i.test(res.headers.get('content-type') ?? '');
    const id = requestId(init?.body);
    const tooLarge =
      id === undefined
        ? null
        : JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: {
              code: RESULT_TOO_LARGE,
              message: `the server's answer is larger than ${maxBytes} bytes (mcp.servers[].maxResultBytes): not read`,
            },
          });
    const frame = (json: string) => (sse ? `event: message\ndata: ${json}\n\n` : json);
    const body = capped(res.body, maxBytes, sse, tooLarge === null ? null : frame(tooLarge));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The id of the JSON-RPC request a POST carries (one message; a batch or a notification has none). */
function requestId(body: RequestInit['body']): string | number | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The body, one message at a time (an SSE event ends at a blank line; a JSON body is one message), each held
 * until whole and passed on only within the cap. Past it: `replacement` (then the end) when given, else the
 * message is dropped up to the next event boundary.
 */
function capped(body: ReadableStream<Uint8Array>, maxBytes: number, sse: boolean, replacement: string | null) {
  const reader = body.getReader();
  const msg = { held: [] as Uint8Array[], size: 0, over: false };
  let lastLf = false;
  const take = (part: Uint8Array) => {
    if (msg.over || part.length === 0) return;
    msg.size += part.length;
    msg.over = msg.size > maxBytes;
    if (msg.over) msg.held = [];
    else msg.held.push(part);
  };
  const reset = () => Object.assign(msg, { held: [], size: 0, over: false });
  // A pull that passes nothing on is not called again: each one reads until it passes something or ends.
  return new ReadableStream<Uint8Array>({
    async pull(out) {
      let passed = false;
      const pass = (bytes: Uint8Array) => {
        out.enqueue(bytes);
        passed = true;
      };
      while (!passed) {
        const { done, value } = await reader.read();
        if (done) {
          if (!msg.over && msg.size > 0) out.enqueue(Buffer.concat(msg.held));
          return out.close();
        }
        let from = 0;
        for (let i = 0; i < value.length; i++) {
          const byte = value[i]!;
          const boundary = sse && byte === 0x0a && lastLf;
          if (byte === 0x0a) lastLf = true;
          else if (byte !== 0x0d) lastLf = false;
          if (!boundary) continue;
          take(value.subarray(from, i + 1));
          from = i + 1;
          if (msg.over && replacement !== null) break;
          if (!msg.over) pass(Buffer.concat(msg.held));
          reset();
        }
        if (!msg.over) take(value.subarray(from));
        if (msg.over && replacement !== null) {
          out.enqueue(new TextEncoder().encode(replacement));
          out.close();
          // Not awaited: undici settles a cancel only once the server stops sending; the socket is dropped now.
          reader.cancel().catch(() => undefined);
          return;
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
