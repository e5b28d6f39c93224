import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServerSchema, type McpServerConfig } from '../../../../toolsets/mcp/config.js';
import { toOpenAiTool } from '../../../../src/loop/tool-specs.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets, type ResolvedToolsets } from '../../../../src/tools/toolset-registry.js';
import { createMcpToolsets } from '../../../../toolsets/mcp/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { noSecrets } from '../../../../src/redact.js';
import { toolsetsForPrompt } from '../../../../src/tools/toolsets-for-prompt.js';
import { SERVER_INSTRUCTIONS } from '../../../helpers/mcp-tools.js';
import { freePort } from '../../../helpers/free-port.js';
import { startMcpHttp, type TestMcpHttp } from '../../../helpers/mcp-http-server.js';
import { waitFor } from '../../../helpers/service.js';
import { captureLog } from '../../../helpers/log-capture.js';

const STDIO_SERVER = fileURLToPath(new URL('../../../helpers/mcp-stdio-server.ts', import.meta.url));

let servers: TestMcpHttp[] = [];
let resolved: ResolvedToolsets[] = [];
afterEach(async () => {
  await Promise.all(resolved.map((r) => r.close()));
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  resolved = [];
});

const capture = () => captureLog('debug');

async function load(server: Record<string, unknown>, log = capture().log) {
  const cfg: McpServerConfig = McpServerSchema.parse(server);
  const r = await resolveToolsets(createMcpToolsets([cfg], { log, backoffMs: 100, maxBackoffMs: 400 }), {}, {});
  resolved.push(r);
  const executor = new ToolExecutor({ tools: r.currentTools, toolsetOf: r.toolsetOf, timeoutMs: 20_000 });
  const call = (name: string, args: Record<string, unknown>, approvedCallKey?: string) =>
    executor.execute(
      { id: `c-${name}`, name, arguments: JSON.stringify(args) },
      approvedCallKey ? { approvedCallKey } : {},
    );
  return { r, executor, call };
}

describe('an MCP server over streamable HTTP', () => {
  it('lists its allowed tools under the server name, with their schemas, and runs a read-only one', async () => {
    const mcp = await startMcpHttp('streamable-http');
    servers.push(mcp);
    const { r, executor, call } = await load({
      name: 'grafana',
      url: mcp.url,
      headers: { Authorization: 'Bearer s3cret-token-value' },
      tools: { allow: ['query_*', 'list_*', 'restart_*'], deny: ['list_whoami'] },
      readOnly: ['query_*', 'list_*'],
    });
    expect(r.statuses).toEqual([
      expect.objectContaining({
        name: 'grafana',
        state: 'enabled',
        tools: ['grafana_query_metrics', 'grafana_restart_pod', 'grafana_list_dashboards', 'grafana_list_broken'],
      }),
    ]);
    const spec = toOpenAiTool(executor.tools.find((t) => t.name === 'grafana_query_metrics')!) as {
      function: { parameters: unknown };
    };
    expect(spec.function.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', maximum: 100 } },
      required: ['query'],
    });
    expect(await call('grafana_query_metrics', { query: 'up' })).toMatchObject({
      status: 'success',
      data: 'result of up: 42',
    });
    expect(mcp.seen.authorization).toContain('Bearer s3cret-token-value');
    expect(r.toolsetOf.get('grafana_query_metrics')).toBe('grafana');
  });

  it("gives the model the operators' instructions from mcp.servers[].instructions, never the server's own", async () => {
    const mcp = await startMcpHttp('streamable-http');
    servers.push(mcp);
    // The server does send instructions at initialize: a plain SDK client reads them.
    const probe = new Client({ name: 'probe', version: '1.0.0' });
    await probe.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    expect(probe.getInstructions()).toBe(SERVER_INSTRUCTIONS);
    await probe.close();
    const said = await load({ name: 'g', url: mcp.url, readOnly: ['*'], instructions: 'Dashboards first.' });
    const silent = await load({ name: 'h', url: mcp.url, readOnly: ['*'] });
    const prompt = [said.r, silent.r].map((r) => toolsetsForPrompt(r.enabled, r.statusesNow(), {}, noSecrets));
    expect(prompt.map((p) => p.toolsets)).toEqual([
      [{ name: 'g', description: expect.stringContaining('MCP server g'), instructions: 'Dashboards first.' }],
      [{ name: 'h', description: expect.stringContaining('MCP server h') }],
    ]);
    expect(JSON.stringify(prompt)).not.toContain('SERVER SAYS');
  });

  it("refuses arguments that break the server's schema, and sends nothing", async () => {
    const mcp = await startMcpHttp('streamable-http');
    servers.push(mcp);
    const { call } = await load({ name: 'g', url: mcp.url, readOnly: ['*'] });
    const res = await call('g_query_metrics', { query: 'up', limit: 1000 });
    expect(res).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/invalid arguments: \/limit must be <= 100/),
    });
    expect(await call('g_query_metrics', {})).toMatchObject({
      error: expect.stringMatching(/must have required property 'query'/),
    });
    expect(mcp.seen.calls).toEqual([]);
  });

  it('asks a human for a tool readOnly does not name, even when the server hints read-only; runs it once approved', async () => {
    const mcp = await startMcpHttp('streamable-http');
    servers.push(mcp);
    const { executor, call } = await load({ name: 'k', url: mcp.url, readOnly: ['query_*', 'list_*'] });
    const tool = executor.tools.find((t) => t.name === 'k_restart_pod')!;
    expect(tool.description).toMatch(/readOnlyHint/);
    const asked = await call('k_restart_pod', { pod: 'api-1' });
    expect(asked).toMatchObject({ status: 'approval_required', error: expect.stringMatching(/side effects/) });
    expect(mcp.seen.calls).toEqual([]);
    const key = callKey('k_restart_pod', JSON.stringify({ pod: 'api-1' }));
    expect(await call('k_restart_pod', { pod: 'api-1' }, key)).toMatchObject({
      status: 'success',
      data: 'restarted api-1',
    });
    expect(mcp.seen.calls).toEqual([{ tool: 'restart_pod', args: { pod: 'api-1' } }]);
  });

  it('turns images into a note, embedded resources into text, and isError into an error result', async () => {
    const mcp = await startMcpHttp('streamable-http');
    servers.push(mcp);
    const { call } = await load({ name: 'g', url: mcp.url, readOnly: ['*'] });
    const res = await call('g_list_dashboards', {});
    expect(res.status).toBe('success');
    expect(res.data).toContain('dashboards: checkout');
    expect(res.data).toContain('[image (image/png) dropped: Lestrade passes text only]');
    expect(res.data).toContain('resource file:///runbook.md:\n# Runbook');
    expect(res.data).not.toContain('iVBORw0KGgo=');
    expect(await call('g_list_broken', {})).toMatchObject({ status: 'error', error: 'datasource not found' });
  });

  it('gives error results while the server is down, then reconnects with backoff when it is back', async () => {
    const mcp = await startMcpHttp('streamable-http');
    servers.push(mcp);
    const { r, call } = await load({ name: 'g', url: mcp.url, readOnly: ['*'] });
    await mcp.stop();
    const down = await call('g_query_metrics', { query: 'a' });
    expect(down).toMatchObject({ status: 'error', error: expect.stringMatching(/^MCP server g: /) });
    expect(r.statusesNow()[0]).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/MCP server g .* is down/),
    });
    expect(await call('g_query_metrics', { query: 'b' })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/down: .*reconnecting, try again later/),
    });
    await mcp.start();
    await waitFor('the reconnection', async () => r.statusesNow()[0]!.state === 'enabled');
    expect(await call('g_query_metrics', { query: 'c' })).toMatchObject({ status: 'success', data: 'result of c: 42' });
  });

  it('is a failed toolset, with the reason, when the server is down at start-up', async () => {
    const port = await freePort();
    const { r } = await load({ name: 'gone', url: `http://127.0.0.1:${port}/mcp?token=hidden` });
    expect(r.statuses[0]).toMatchObject({
      name: 'gone',
      state: 'failed',
      reason: expect.stringMatching(new RegExp(`cannot reach MCP server gone at http://127.0.0.1:${port}/mcp: `)),
    });
    expect(r.statuses[0]!.reason).not.toContain('hidden');
    expect(r.tools).toEqual([]);
  });
});

describe('an MCP server over SSE', () => {
  it('lists and calls tools with transport: sse', async () => {
    const mcp = await startMcpHttp('sse');
    servers.push(mcp);
    const { r, call } = await load({ name: 'old', url: mcp.url, transport: 'sse', readOnly: ['query_*'] });
    expect(r.statuses[0]).toMatchObject({ state: 'enabled', tools: expect.arrayContaining(['old_query_metrics']) });
    expect(await call('old_query_metrics', { query: 'x' })).toMatchObject({
      status: 'success',
      data: 'result of x: 42',
    });
  });

  it('takes up a tool the server adds later, on notifications/tools/list_changed, with the allow list applied', async () => {
    const mcp = await startMcpHttp('sse');
    servers.push(mcp);
    const { lines, log } = capture();
    const { r, call } = await load(
      { name: 'old', url: mcp.url, transport: 'sse', tools: { deny: ['secret_*'] }, readOnly: ['query_*', 'list_*'] },
      log,
    );
    const names = () => r.currentTools().map((t) => t.name);
    expect(names()).not.toContain('old_list_late');
    mcp.addTool('list_late');
    mcp.addTool('secret_dump');
    await waitFor('the new tool to be listed', async () => names().includes('old_list_late'), 10_000);
    expect(names()).not.toContain('old_secret_dump');
    expect(await call('old_list_late', {})).toMatchObject({ status: 'success', data: 'list_late ran' });
    expect(lines.some((l) => l.msg === 'MCP server tool list changed' && l.mcpServer === 'old')).toBe(true);
  });
});

describe('an MCP server over stdio', () => {
  it('spawns it without our environment, logs its stderr, and restarts it with backoff when it exits', async () => {
    process.env.LESTRADE_LEAK = 'must-not-pass';
    const { lines, log } = capture();
    const { r, call } = await load(
      {
        name: 'local',
        command: [process.execPath, '--import', 'tsx', STDIO_SERVER],
        env: { MCP_TEST_SECRET: 'stdio-secret-1' },
        readOnly: ['query_*', 'list_*'],
      },
      log,
    );
    delete process.env.LESTRADE_LEAK;
    expect(r.statuses[0]).toMatchObject({ state: 'enabled', tools: expect.arrayContaining(['local_list_whoami']) });
    expect(await call('local_list_whoami', {})).toMatchObject({ data: 'you sent: stdio-secret-1' });
    await waitFor('its stderr in the logs', async () =>
      lines.some((l) => l.mcpServer === 'local' && String(l.stderr).includes('LESTRADE_LEAK is unset')),
    );
    const key = callKey('local_restart_pod', JSON.stringify({ pod: 'crash' }));
    const crashed = await call('local_restart_pod', { pod: 'crash' }, key);
    expect(crashed.status).toBe('error');
    await waitFor('the restart', async () =>
      lines.some((l) => l.msg === 'MCP server reconnected' && l.mcpServer === 'local'),
    );
    expect(lines.find((l) => l.msg === 'MCP server dropped; reconnecting')).toMatchObject({
      reason: expect.stringMatching(/exited.*crashing as asked/s),
    });
    expect(await call('local_query_metrics', { query: 'after' })).toMatchObject({ status: 'success' });
  });
});
