import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInvestigator } from '../../../cli/build-investigator.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { toolsets as toolsetRegistry } from '../../../toolsets/index.js';
import { SAMPLE_ISSUE } from '../../../src/prompts/prompt-renderer.js';
import { freePort } from '../../helpers/free-port.js';
import { startScriptedLlm, type ScriptedLlm } from '../../helpers/scripted-llm.js';

// The system prompt an investigation starts with, as the service and the CLI build it: the toolsets the
// model has, with their instructions, and the ones it lacks with the reason `lestrade toolsets list`
// shows, secrets left out. No eval, no model: a scripted LLM records what it was sent.

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm([{ content: '## Root cause\nunknown' }]);
});
afterAll(async () => {
  await llm?.close();
});

function setup(deadPort: number): { env: Record<string, string>; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-prompt-toolsets-'));
  writeFileSync(
    join(dir, 'ready.yaml'),
    `name: ready
description: Deploys of my service
instructions: |
  Read the deploys of the last hour first.
tools: [ { name: ready_deploys, description: deploys, command: [echo, deploys] } ]
`,
  );
  // A prerequisite that fails saying a URL with a password and a token in its query.
  writeFileSync(
    join(dir, 'blocked.yaml'),
    `name: blocked
description: Something that cannot run here
instructions: Never shown, since the toolset is not available.
prerequisites:
  - command: [sh, -c, 'echo "no cluster at https://admin:k8s-pa55@k8s.internal/?token=tok-in-query" >&2; exit 1']
tools: [ { name: blocked_get, description: gets, command: [echo, nope] } ]
`,
  );
  const configPath = join(mkdtempSync(join(tmpdir(), 'lestrade-prompt-config-')), 'lestrade.yaml');
  writeFileSync(
    configPath,
    `toolsets:
  dirs: [${JSON.stringify(dir)}]
  settings:
    ready: { instructions: "Operators: our deploys are tagged with the ticket id." }
`,
  );
  return {
    configPath,
    env: {
      OPENAI_API_KEY: 'sk-prompt-test',
      OPENAI_BASE_URL: llm.baseUrl,
      PROMETHEUS_URL: `http://reader:prom-pa55word@127.0.0.1:${deadPort}/?access_token=prom-query-token`,
    },
  };
}

describe('the toolsets in the system prompt', () => {
  it('gives the available ones with their instructions and the unavailable ones with why, never their tools or secrets', async () => {
    const deadPort = await freePort();
    const { env, configPath } = setup(deadPort);
    const config = loadConfig(env, configPath, [], [], toolsetRegistry);
    const { investigator, toolsets } = await buildInvestigator(config, env);
    try {
      await investigator.investigate(SAMPLE_ISSUE);
    } finally {
      await toolsets.close();
    }
    const request = llm.requests[0]!;
    const system = request.messages[0]!.content!;
    expect(system).toContain(
      '- ready: Deploys of my service\n' +
        '    Read the deploys of the last hour first.\n' +
        '    Operators: our deploys are tagged with the ticket id.\n',
    );
    const notAvailable = system.slice(system.indexOf('\nNot available'));
    expect(notAvailable).toMatch(
      /^- blocked — prerequisite not met: `sh -c .*` exited 1: no cluster at https:\/\/admin:\*\*\*@k8s\.internal\/$/m,
    );
    expect(notAvailable).toContain(
      `- prometheus — prerequisite not met: Prometheus at http://reader:***@127.0.0.1:${deadPort}/ did not answer: ECONNREFUSED\n`,
    );
    expect(notAvailable).toContain('- bash — switched off in configuration\n');
    for (const secret of ['k8s-pa55', 'tok-in-query', 'prom-pa55word', 'prom-query-token', 'Never shown'])
      expect(system).not.toContain(secret);
    const offered = (request.tools ?? []).map((t) => t.function.name);
    expect(offered).toContain('ready_deploys');
    expect(offered).not.toContain('bash');
    for (const absent of ['blocked_get', 'prometheus_query']) {
      expect(offered).not.toContain(absent);
      expect(system).not.toContain(absent);
    }
  });
});
