// The interactive paths as a person uses them: the real CLI in a tmux pseudo terminal, keys sent, the screen read.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO, DEMO_NOW, ROOT } from './run.js';

const tmux = ['/usr/bin/tmux', '/bin/tmux'].find((p) => existsSync(p));
// a tmux server of its own (-L): another test file's server ending never takes these sessions with it, and two
// vitest workers can run the tmux files side by side
const SOCKET = ['-L', `casdoctor-interactive-${process.pid}`];
const sessions: string[] = [];

function start(command: string): string {
  const name = `casdoctor-${process.pid}-${sessions.length}`;
  sessions.push(name);
  execFileSync(tmux!, [...SOCKET, 'new-session', '-d', '-s', name, '-x', '160', '-y', '45', `cd ${ROOT} && NO_COLOR=1 ${command}; echo "EXIT=$?"; sleep 30`]);
  return name;
}
const screen = (s: string) => execFileSync(tmux!, [...SOCKET, 'capture-pane', '-t', s, '-p', '-S', '-200'], { encoding: 'utf8' });
const keys = (s: string, ...k: string[]) => execFileSync(tmux!, [...SOCKET, 'send-keys', '-t', s, ...k]);

async function waitFor(s: string, re: RegExp, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const text = screen(s);
    if (re.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${re}; screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

afterEach(() => {
  for (const s of sessions.splice(0)) spawnSync(tmux!, [...SOCKET, 'kill-session', '-t', s]);
});

const cli = `node bin/casdoctor.js`;

describe.skipIf(!tmux)('at a terminal (tmux; skipped where tmux is not installed)', () => {
  it('why-pending without a pod offers a searchable picker of Pending pods, then reports the chosen one', async () => {
    const s = start(`${cli} why-pending --from ${DEMO} --now ${DEMO_NOW}`);
    const picker = await waitFor(s, /8 of 8/);
    expect(picker).toContain('Pick a Pending pod');
    expect(picker).toMatch(/payments\/ledger-db-0 +age 39m46s · CA: NotTriggerScaleUp/);
    keys(s, 'ledger');
    await waitFor(s, /1 of 8/);
    keys(s, 'Enter');
    const report = await waitFor(s, /EXIT=\d/);
    expect(report).toContain('payments/ledger-db-0  no scale-up');
    expect(report).toContain('pod-volume-zone-conflict');
    expect(report).toContain('EXIT=1');
  });

  it('Esc leaves the picker without a report, exit 0', async () => {
    const s = start(`${cli} why-pending --from ${DEMO} --now ${DEMO_NOW}`);
    await waitFor(s, /8 of 8/);
    keys(s, 'Escape');
    const out = await waitFor(s, /EXIT=\d/);
    expect(out).toContain('EXIT=0');
    expect(out).not.toContain('NODE GROUP');
  });

  it('casdoctor --menu shows the overview and a menu that runs the chosen command', async () => {
    const s = start(`${cli} --menu --from ${DEMO} --now ${DEMO_NOW}`);
    const menu = await waitFor(s, /What next\?/);
    expect(menu).toMatch(/8 Pending: 6 no node group can place, 1 CA scales up/);
    expect(menu).toMatch(/of 11 nodes removable now/);
    keys(s, 'audit');
    await waitFor(s, /1 of 3/);
    keys(s, 'Enter');
    const report = await waitFor(s, /EXIT=\d/);
    expect(report).toContain('casdoctor asg-audit');
    expect(report).toContain('demo-monitoring');
  });

  it('at a terminal, casdoctor alone prints the overview and the next commands and exits, as kubectl does (issue 28)', async () => {
    const s = start(`${cli} --from ${DEMO} --now ${DEMO_NOW}`);
    const out = await waitFor(s, /EXIT=\d/);
    expect(out).toContain('Cluster Autoscaler overview');
    expect(out).toContain('Next:\n  casdoctor why-pending -A');
    expect(out).not.toContain('What next?');
    expect(out).toContain('EXIT=1');
  });

  it('off a terminal, casdoctor alone prints the overview and the next commands, without a menu', () => {
    const r = spawnSync(process.execPath, ['bin/casdoctor.js', '--from', DEMO, '--now', DEMO_NOW], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('Cluster Autoscaler overview');
    // issue 15: the next commands read the same input (--from, --now) as the overview did
    expect(r.stdout).toContain(`Next:\n  casdoctor why-pending -A --from ${DEMO} --now ${DEMO_NOW}\n`);
    expect(r.stdout).not.toContain('What next?');
  });

  it('scale-down-blockers --pick lists the nodes and explains the chosen one', async () => {
    const s = start(`${cli} scale-down-blockers --pick --from ${DEMO} --now ${DEMO_NOW}`);
    await waitFor(s, /11 of 11/);
    keys(s, '9-58');
    await waitFor(s, /1 of 11/);
    keys(s, 'Enter');
    const report = await waitFor(s, /EXIT=\d/);
    expect(report).toMatch(/ip-10-0-9-58 .*ScaleDownDisabledAnnotation/);
    expect(report).toContain('EXIT=0');
  });

  it('scale-down-blockers --watch marks a node whose CA reason changed between rounds', async () => {
    const dump = mkdtempSync(join(tmpdir(), 'casdoctor-watch-sd-'));
    cpSync(DEMO, dump, { recursive: true });
    const node = 'ip-10-0-9-58.ec2.internal';
    const s = start(`${cli} scale-down-blockers --node ${node} --from ${dump} --now ${DEMO_NOW} --watch 10s`);
    await waitFor(s, /round 1 at .*every 10s/);
    const nodes = JSON.parse(readFileSync(join(dump, 'nodes.json'), 'utf8'));
    const n = nodes.items.find((x: { metadata: { name: string } }) => x.metadata.name === node);
    delete n.metadata.annotations['cluster-autoscaler.kubernetes.io/scale-down-disabled'];
    writeFileSync(join(dump, 'nodes.json'), JSON.stringify(nodes));
    const round2 = await waitFor(s, /1 change\(s\) since the last round/, 20_000);
    expect(round2).toMatch(/\* ip-10-0-9-58\.ec2\.internal: ScaleDownDisabledAnnotation → \w+/);
    keys(s, 'C-c');
    expect(await waitFor(s, /EXIT=\d/)).toContain('EXIT=0');
  }, 40_000);

  it('never prompts off a terminal or with --yes', () => {
    const r = spawnSync(process.execPath, ['bin/casdoctor.js', 'why-pending', '--from', DEMO, '--yes'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('name a pod');
  });

  it('--watch re-reads the dump each round, marks what changed, and exits cleanly on Ctrl-C', async () => {
    const dump = mkdtempSync(join(tmpdir(), 'casdoctor-watch-'));
    cpSync(DEMO, dump, { recursive: true });
    const s = start(`${cli} why-pending --all -n web --from ${dump} --now ${DEMO_NOW} --watch 10s`);
    await waitFor(s, /round 1 at .*every 10s/);
    // the api pod gets a node between rounds
    const pods = JSON.parse(readFileSync(join(dump, 'pods.json'), 'utf8'));
    const api = pods.items.find((p: { metadata: { name: string } }) => p.metadata.name === 'api-5jnmtxgjl-prp7m');
    api.spec.nodeName = 'ip-10-0-11-142.ec2.internal';
    api.status = { phase: 'Running' };
    writeFileSync(join(dump, 'pods.json'), JSON.stringify(pods));
    const round2 = await waitFor(s, /1 change\(s\) since the last round/, 20_000);
    expect(round2).toMatch(/round 2 at .*\n.*changed since the last round:\n +\* web\/api-5jnmtxgjl-prp7m is no longer Pending \(it got a node or was deleted\)/);
    keys(s, 'C-c');
    const end = await waitFor(s, /EXIT=\d/);
    expect(end).toContain('EXIT=1'); // the last round still had a pod no group can host
    expect(end).not.toMatch(/Error|at .*\.js:\d+/);
  }, 40_000);
});
