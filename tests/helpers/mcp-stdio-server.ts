// A real MCP server over stdio (the SDK's), for tests: `node --import tsx tests/helpers/mcp-stdio-server.ts`.
// It writes a line to stderr at start, and exits when it gets a call to restart_pod with pod "crash".
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildMcpServer } from './mcp-tools.js';

const seen = { calls: [] as Array<{ tool: string; args: Record<string, unknown> }>, authorization: [] };
process.stderr.write(`test MCP server up; MCP_TEST_SECRET is ${process.env.MCP_TEST_SECRET ? 'set' : 'unset'}, `);
process.stderr.write(`LESTRADE_LEAK is ${process.env.LESTRADE_LEAK ? 'set' : 'unset'}\n`);
const server = buildMcpServer(seen, () => process.env.MCP_TEST_SECRET);
const calls = seen.calls;
seen.calls = new Proxy(calls, {
  get(target, prop, receiver) {
    if (prop === 'push')
      return (...items: Array<{ tool: string; args: Record<string, unknown> }>) => {
        if (items.some((i) => i.tool === 'restart_pod' && i.args.pod === 'crash')) {
          process.stderr.write('crashing as asked\n');
          process.exit(3);
        }
        return target.push(...items);
      };
    return Reflect.get(target, prop, receiver) as unknown;
  },
});
await server.connect(new StdioServerTransport());
