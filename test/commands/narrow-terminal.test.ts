// Issue 15: the reports at an 80-column terminal (tmux), as a person on a laptop split screen sees them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, DEMO_NOW, ROOT } from './run.js';

const tmux = ['/usr/bin/tmux', '/bin/tmux'].find((p) => existsSync(p));
const sessions: string[] = [];
// a tmux server of its own: sessions of other test files ending (and their server with them) never race with these
const SOCKET = ['-L', `casdoctor-narrow-${process.pid}`];

// one idle session keeps this server up between tests: a server whose last session ends exits, racing the next test
beforeAll(() => {
  if (tmux) execFileSync(tmux, [...SOCKET, 'new-session', '-d', '-s', 'keep', 'sleep 600']);
  // panes made from now on keep the whole of a long report (a pane's scrollback is fixed when it is made)
  if (tmux) execFileSync(tmux, [...SOCKET, 'set-option', '-g', 'history-limit', '50000']);
});
afterEach(() => {
  for (const s of sessions.splice(0)) spawnSync(tmux!, [...SOCKET, 'kill-session', '-t', s]);
});
afterAll(() => {
  if (tmux) spawnSync(tmux, [...SOCKET, 'kill-server']);
});

/** Runs a command in an 80x50 tmux pane and returns the whole scrollback, lines the terminal wrapped joined again. */
async function at80(args: string, o: { shell?: boolean; ms?: number } = {}): Promise<string> {
  const name = `casdoctor-narrow-${process.pid}-${sessions.length}`;
  sessions.push(name);
  const command = o.shell ? args : `NO_COLOR=1 node bin/casdoctor.js ${args}`;
  execFileSync(tmux!, [...SOCKET, 'new-session', '-d', '-s', name, '-x', '80', '-y', '50', `cd ${ROOT} && ${command}; echo "EXIT=$?"; sleep 30`]);
  const end = Date.now() + (o.ms ?? 20_000);
  for (;;) {
    // -J joins the lines the terminal wrapped: a line longer than 80 here is one that spilled past the edge
    const text = execFileSync(tmux!, [...SOCKET, 'capture-pane', '-t', name, '-p', '-J', '-S', '-20000'], { encoding: 'utf8' });
    if (/EXIT=\d/.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out; screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * Lines wider than the terminal, other than one unbreakable word (a URL) and commands to copy, kept on one line. A
 * report's header (`casdoctor why-pending · CA … · now …`) is not a command: it must fit (issue 28).
 */
const spilled = (screen: string) =>
  screen
    .split('\n')
    .filter((l) => [...l].length > 80 && l.trim().includes(' ') && (!/^\s*(aws|kubectl|casdoctor) /.test(l) || /^casdoctor [a-z-]+ · /.test(l)));

const demo = `--from ${DEMO} --now ${DEMO_NOW}`;

describe.skipIf(!tmux)('at an 80-column terminal (tmux; skipped where tmux is not installed)', () => {
  it('the scale-down table and report fit, and no node or pod name is cut', async () => {
    const screen = await at80(`scale-down-blockers ${demo}`);
    expect(screen).toContain('EXIT=0');
    expect(spilled(screen)).toEqual([]);
    expect(screen).toMatch(/^ {2}NODE +GROUP +VERDICT +CA REASON$/m);
    expect(screen).toContain('ScaleDownDisabledAnnotation');
    // issue 28: the utilization cell no longer breaks into three lines (cpu / 75.6% / <= 85%*): it goes under the row, whole
    expect(screen).toContain('\n      utilization: cpu 75.6% <= 85%*; blocking pods: 3: UnmovableKubeSystemPod,');
    expect(screen).toContain('\n      utilization: memory 89.8% > 50%\n');
    expect(screen).not.toMatch(/^ +(<= \d+%\*?|\d+(\.\d)?%( <=| >)?)$/m);
    expect(screen).toContain('blocking pods: no room:\n        frontend-ndxrt2l4f-2mbtq');
    expect(screen).not.toContain('…');
  });

  it('the node-group table of a pod fits, and taints and tag keys stay whole', async () => {
    const screen = await at80(`why-pending payments/ledger-db-0 ${demo}`);
    expect(screen).toContain('EXIT=1');
    expect(spilled(screen)).toEqual([]);
    expect(screen).toContain('dedicated=databases:NoSchedule');
    expect(screen).toContain('"k8s.io/cluster-autoscaler/demo"');
    expect(screen).toMatch(/^ {2}demo-databases +1\/1\/5 +r5\.2xlarge +node +no$/m);
    expect(screen).not.toMatch(/NoSched…|cluster-autoscaler\/…/);
    // a fix's command is copied whole: never split across lines
    expect(screen).toContain('        kubectl auth can-i list volumeattachments.storage.k8s.io --as=system:serviceaccount:kube-system:cluster-autoscaler');
  });

  it('explain renders the page for the terminal: no Markdown marks, prose wrapped to 80, commands kept whole', async () => {
    const screen = await at80('explain pod-untolerated-taint');
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/^POD-UNTOLERATED-TAINT$/m);
    expect(screen).toMatch(/^What it means$/m);
    expect(screen).not.toMatch(/^#|\*\*|```/m);
    expect(spilled(screen).filter((l) => !l.startsWith('    '))).toEqual([]);
    expect(screen).toContain('    aws autoscaling delete-tags --tags ResourceId=demo-databases,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/taint/dedicated');
  });

  it('every report\'s header line fits, broken between its facts (issue 28)', async () => {
    const screen = await at80(`why-pending -A ${demo} --fail-on never`);
    expect(spilled(screen)).toEqual([]);
    // (where `from` lands depends on the checkout's path: only the first two lines are pinned)
    expect(screen).toContain('casdoctor why-pending · CA v1.32.1 (kube-system/cluster-autoscaler)\n  · expander least-waste · now 2026-11-21T10:00:00.000Z');
    const audit = await at80(`asg-audit ${demo}`);
    // the discovery tag list is one word to copy: under its label, whole
    expect(audit).toContain('\n  · discovery\n    asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo\n');
  });

  it('checks puts each summary under its check, not from column 73', async () => {
    const screen = await at80('checks');
    expect(spilled(screen)).toEqual([]);
    expect(screen).toMatch(/^ {2}pod-untolerated-taint +error +why-pending.*\n {6}summary: /m);
  });
});

// Issue 28: every command on every example, one pane for all (one tmux session: the cost is the commands, not tmux).
// Kept on one line on purpose: commands, URLs, and a fix's YAML or code lines (indented under `fix:`), all to paste.
const EXAMPLES = ['demo', 'karpenter', 'karpenter-only', 'externalgrpc'];
// (the audits are not run on karpenter-only: they refuse it, exit 2, pointing at the commands that explain Karpenter)
const COMMANDS = ['why-pending -A --all', 'scale-down-blockers', '', 'node-group-audit', 'asg-audit'];
const yamlOrCode = (l: string) => /^ {6,}\S/.test(l) && !/^ {6,}(· |utilization|blocking|→)/.test(l);

describe.skipIf(!tmux)('every command on every example at 80 columns (tmux)', () => {
  it('no line spills past the edge but one to copy whole, and no report is cut short', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-80-'));
    const runs = [
      ...EXAMPLES.flatMap((ex) => COMMANDS.filter((c) => !c.endsWith('audit') || ex !== 'karpenter-only').map((c) => `${c} --from examples/${ex} --fail-on never`.trim())),
      'preflight -f examples/preflight/manifests --eksctl examples/preflight/cluster.yaml --config examples/preflight/.casdoctor.yaml --fail-on never',
      'preflight -f examples/preflight/manifests --nodepools examples/karpenter --fail-on never',
      'why-this-type --from examples/karpenter',
      'why-this-type --from examples/karpenter-only',
      'checks',
    ];
    const script = runs.map((r) => `echo "=== ${r}"; NO_COLOR=1 node bin/casdoctor.js ${r} 2>/dev/null; echo "RC=$?"`).join('\n');
    writeFileSync(join(dir, 'all.sh'), `cd ${JSON.stringify(ROOT)}\n${script}\n`);
    const screen = await at80(`bash ${join(dir, 'all.sh')}`, { shell: true, ms: 120_000 });
    const sections = screen.split(/^=== /m).slice(1);
    expect(sections.map((x) => x.split('\n')[0])).toEqual(runs);
    for (const sec of sections) {
      const [title] = sec.split('\n');
      // every command ran to its end with a usual exit code (0, or 1 for findings), not a usage or input error
      expect(sec, title).toMatch(/^RC=[01]$/m);
      expect(spilled(sec.slice(title.length)).filter((l) => !yamlOrCode(l)), title).toEqual([]);
    }
  }, 180_000);
});
