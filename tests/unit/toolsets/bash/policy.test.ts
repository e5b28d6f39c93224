import { describe, expect, it } from 'vitest';
import { paramsKey } from '../../../../src/tools/call-key.js';
import { createBashToolset } from '../../../../toolsets/bash/index.js';
import { checkCommand, type BashPolicyConfig } from '../../../../toolsets/bash/policy.js';

const cfg: BashPolicyConfig = {
  allow: ['kubectl rollout-plugin'],
  deny: ['kubectl get nodes'],
  curlHosts: ['prometheus:9090'],
};
const verdict = async (command: string) => (await checkCommand(command, cfg)).verdict;
const decision = async (command: string) => (await verdict(command)).decision;

describe('bash policy: allowed read-only commands and pipelines', () => {
  it.each([
    'kubectl get pods -n prod',
    'kubectl -n prod get pods -o json | jq -r ".items[].metadata.name"',
    'kubectl logs deploy/api --tail 200 | grep -i error | sort | uniq -c | sort -rn | head -5',
    'kubectl describe pod api-1 -n prod',
    'kubectl top pods -A --sort-by=cpu',
    'kubectl events -n prod',
    "kubectl get pods -o wide | awk '{print $1, $3}' | tail -n 3",
    "kubectl get pods | cut -d ' ' -f1 | wc -l",
    'kubectl rollout status deploy/api',
    'curl -s http://prometheus:9090/api/v1/alerts | jq .data',
    'kubectl get pods | grep -e "a b" -e c',
  ])('allows %s', async (command) => {
    expect(await verdict(command)).toEqual({ decision: 'allow' });
  });

  it('turns quoting into the words the program receives, with no shell in between', async () => {
    const { stages } = await checkCommand(`kubectl logs api | grep 'a|b' | grep "x \\"y\\" \\$z" | grep c\\ d`, cfg);
    expect(stages).toEqual([
      ['kubectl', 'logs', 'api'],
      ['grep', 'a|b'],
      ['grep', 'x "y" $z'],
      ['grep', 'c d'],
    ]);
  });
});

describe('bash policy: refused, with the reason', () => {
  it.each([
    ['rm -rf /', /rm deletes files/],
    ['kubectl delete pod api-1', /kubectl delete changes the cluster/],
    ['kubectl apply -f x.yaml', /kubectl apply changes the cluster/],
    ['kubectl edit deploy/api', /kubectl edit changes/],
    ['kubectl exec -it api-1 -- sh', /kubectl exec changes/],
    ['kubectl rollout restart deploy/api', /kubectl rollout restart changes a rollout/],
    ['kubectl logs -f api', /follows and never ends/],
    ['kubectl get pods -w', /watches and never ends/],
    ['kubectl get pods; rm -rf /', /chaining commands \(;\)/],
    ['kubectl get pods && rm -rf /', /chaining commands \(&&, \|\|\)/],
    ['kubectl get pods || true', /chaining/],
    ['kubectl get pods > /etc/passwd', /redirection/],
    ['kubectl get pods < /etc/passwd', /redirection/],
    ['kubectl get pods 2>&1', /redirection/],
    ['kubectl get pods $(rm -rf /)', /command substitution/],
    ['kubectl get pods `rm -rf /`', /command substitution/],
    ['kubectl get pods "$(rm -rf /)"', /command substitution/],
    ['kubectl get pods &', /background jobs/],
    ['(kubectl get pods)', /subshells/],
    ['{ kubectl get pods; }', /groups|chaining/],
    ['KUBECONFIG=/tmp/x kubectl get pods', /environment assignments/],
    ['kubectl get pods -n $NS', /variable expansion/],
    ['kubectl get pods -n ${NS}', /parameter expansion/],
    ['kubectl get pods\nrm -rf /', /newlines/],
    ['kubectl get pods |& grep x', /piping stderr/],
    ["kubectl get pods $'\\x3b'", /ANSI-C quoting/],
    ['kubectl get pods | sh', /sh runs a shell/],
    ['kubectl get pods | xargs rm', /xargs runs other commands/],
    ['/bin/rm x', /not a plain command name/],
    ['curl -X POST http://prometheus:9090/api/v1/admin/tsdb/delete_series', /curl -X POST sends data/],
    ['curl -d x=1 http://prometheus:9090/', /sends data/],
    ['curl -o /tmp/x http://prometheus:9090/', /writes a file/],
    ['curl file:///etc/passwd', /only http and https/],
    [
      'curl http://evil.example.com/x',
      /evil\.example\.com:80, which is not in toolsets\.bash\.curlHosts: add "evil\.example\.com:80"/,
    ],
    ['awk \'BEGIN{system("rm -rf /")}\'', /system\(\) runs commands/],
    ['kubectl get pods | awk \'{print > "/tmp/x"}\'', /print > writes files/],
    ['kubectl get pods | awk \'{print | "sh"}\'', /pipes \(\|\) run commands/],
    ['awk \'BEGIN{print ENVIRON["OPENAI_API_KEY"]}\'', /ENVIRON reads the environment/],
    ['jq -n env', /reads the environment/],
    ['jq -n "$ENV.OPENAI_API_KEY"', /variable expansion|reads the environment/],
    ["jq -n '$ENV'", /reads the environment/],
    ['sort -o /etc/passwd', /writes a file/],
    ['sort --compress-program=sh -S 1', /runs a program/],
    ['sort --compress-prog=sh', /runs a program/],
    ['uniq - /tmp/x', /uniq writes its second argument/],
    ['tail -f /var/log/syslog', /never ends/],
    ['kubectl get nodes', /configured deny prefix "kubectl get nodes"/],
    ['kubectl get pods --as=system:admin', /Lestrade pins the identity/],
    ['kubectl get pods "unterminated', /not valid shell syntax/],
    // bash reads one word ("--"), the grammar two ("-", "-"): an approver would read it as bash does.
    ["awk '-'\\- '{print}' /etc/passwd", /words written together/],
    ['curl -H @/proc/1/environ http://prometheus:9090/', /reads headers from a file/],
    ['curl --header=@/etc/shadow http://prometheus:9090/', /reads headers from a file/],
  ])('refuses %j', async (command, reason) => {
    const v = await verdict(command);
    expect(v.decision).toBe('deny');
    expect((v as { reason: string }).reason).toMatch(reason);
  });

  it.each([
    ['kubectl get pods；rm -rf /', /"；" \(U\+FF1B\) looks like ";"/],
    ['ｒｍ -rf /', /looks like "r"/],
    ['kubectl get pods ｜ sh', /looks like "\|"/],
    ['кubectl get pods', /non-ASCII characters outside quotes/],
    ['kubectl dеlete pod x', /non-ASCII characters outside quotes/],
    ['kubectl get pods\u200b; rm x', /invisible or direction-changing character U\+200B/],
    ['kubectl get pods \u202erm', /U\+202E/],
    ['kubectl\u00a0get pods', /unusual space U\+00A0/],
    ['kubectl get pods\u2028rm -rf /', /U\+2028/],
  ])('refuses the look-alike %j', async (command, reason) => {
    const v = await verdict(command);
    expect(v.decision).toBe('deny');
    expect((v as { reason: string }).reason).toMatch(reason);
  });

  it('lets non-ASCII text through inside quotes, where it is only data', async () => {
    expect(await decision('kubectl logs api | grep "café ünïcode"')).toBe('allow');
  });
});

describe('bash policy: a human decides the rest', () => {
  it.each([
    ['kubectl get secrets -n prod', /Secrets reveals credentials/],
    ['kubectl get pods,secret/db -n prod', /Secrets/],
    ['kubectl get --raw /api/v1/namespaces/prod/secrets', /reads any API path/],
    ['kubectl frobnicate', /kubectl frobnicate is not on the read-only list/],
    ['cat /etc/hosts', /cat is not on the read-only list/],
    ['grep root /etc/passwd', /grep with 1 more argument\(s\) reads files/],
    ['grep -r password /etc', /-r: reads files/],
    ['head -n 5 /proc/self/environ', /reads files/],
    ['jq . /etc/hosts.json', /jq with 1 more argument/],
    ['grep --frobnicate x', /option --frobnicate is not on the read-only list/],
  ])('asks for %j', async (command, reason) => {
    const v = await verdict(command);
    expect(v.decision).toBe('ask');
    expect((v as { reason: string }).reason).toMatch(reason);
  });

  it('takes the strictest verdict of a pipeline: a refused stage refuses the whole', async () => {
    expect(await decision('cat /etc/hosts | grep x')).toBe('ask');
    expect(await decision('cat /etc/hosts | rm x')).toBe('deny');
  });

  it('lets the configured allow prefix lift "ask" to "allow", never a refusal', async () => {
    expect(await decision('kubectl rollout-plugin status')).toBe('allow');
    const withDelete = { ...cfg, allow: ['kubectl delete'] };
    expect((await checkCommand('kubectl delete pod x', withDelete)).verdict.decision).toBe('deny');
  });
});

/** issue 30, defect 7: 150 stages of `tr a b |` started 150 sandboxes; a line now has a handful at most. */
describe('bash policy: a cap on pipeline stages', () => {
  const line = (n: number) => Array.from({ length: n }, () => 'tr a b').join(' | ');

  it('allows up to toolsets.bash.maxStages stages (8 by default) and refuses more, naming the key', async () => {
    expect(await decision(line(8))).toBe('allow');
    for (const n of [9, 150]) {
      const v = await verdict(line(n));
      expect(v.decision).toBe('deny');
      expect((v as { reason: string }).reason).toBe(
        `a pipeline of ${n} stages is more than toolsets.bash.maxStages (8): narrow it to 8 stages or fewer, or raise toolsets.bash.maxStages`,
      );
    }
  });

  it('takes the configured cap', async () => {
    const two = { ...cfg, maxStages: 2 };
    expect((await checkCommand(line(2), two)).verdict.decision).toBe('allow');
    expect((await checkCommand(line(3), two)).verdict).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/of 3 stages is more than toolsets.bash.maxStages \(2\)/),
    });
  });
});

describe('the bash tool', () => {
  const toolset = createBashToolset({
    allow: [],
    deny: [],
    curlHosts: [],
    timeoutMs: 5_000,
    maxOutputBytes: 1_000,
    env: [],
  });
  const tool = toolset.tools[0]!;
  const ctx = { signal: new AbortController().signal, approved: false };

  it('is off unless switched on', () => {
    expect(toolset.enabled).toBe(false);
  });

  it('runs an allowed pipeline without a shell, each stage its own process, capping the output', async () => {
    {
      // printf is not on the list, so the run is approved for this exact call.
      const params = { command: "printf 'b\\na\\nb\\n' | sort | uniq -c | sort -rn" };
      const approved = { ...ctx, approved: true, approvedCall: paramsKey('bash', params) };
      const out = await tool.run(params, approved);
      expect(out).toEqual({ status: 'success', data: expect.stringMatching(/^\s*2 b\n\s*1 a\n$/) });
      const big = await tool.run(
        { command: 'yes | head -c 5000' },
        { ...approved, approvedCall: paramsKey('bash', { command: 'yes | head -c 5000' }) },
      );
      expect(big).toMatchObject({ status: 'success', data: expect.stringMatching(/output capped at 1000 bytes/) });
    }
  });

  it('re-checks at run time: refuses a refused command and an unapproved one even when called directly', async () => {
    expect(
      await tool.run(
        { command: 'rm -rf /tmp/nothing' },
        { ...ctx, approved: true, approvedCall: paramsKey('bash', { command: 'rm -rf /tmp/nothing' }) },
      ),
    ).toMatchObject({ status: 'error', error: expect.stringMatching(/^refused: rm deletes files/) });
    expect(await tool.run({ command: 'printf x' }, ctx)).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/needs a human's approval/),
    });
    // Approved, but for another call: still refused.
    expect(
      await tool.run(
        { command: 'printf x' },
        { ...ctx, approved: true, approvedCall: paramsKey('bash', { command: 'printf y' }) },
      ),
    ).toMatchObject({ status: 'error', error: expect.stringMatching(/needs a human's approval/) });
  });

  it("hands commands no secret from Lestrade's environment", async () => {
    process.env.OPENAI_API_KEY = 'sk-should-not-leak';
    try {
      const params = { command: 'printenv' };
      const out = await tool.run(params, { ...ctx, approved: true, approvedCall: paramsKey('bash', params) });
      expect(JSON.stringify(out)).not.toContain('sk-should-not-leak');
      expect(JSON.stringify(out)).toContain('PATH=');
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
});
