// Foreign text cannot drive the reader's terminal or PR page: the real CLI on a dump and on manifests laced with escape
// sequences (OSC 52 clipboard write, OSC 8 hidden link, CSI 2J, CR overwrite, C1 CSI, U+202E) and markdown/HTML
// injection, in every renderer. Issue 13.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SPINNER_MIN_COLUMNS, wantsSpinner } from '../../src/commands/common.js';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

/** Everything a terminal acts on: OSC 52 (clipboard), CSI 2J (clear), CR (overwrite), C1 CSI, bidi override. */
// as on a user's terminal: CI=true (set when CI runs this suite) makes ora print one static frame instead of spinning
const USER_TERMINAL_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'CI'));
const TERMINAL_HOSTILE = '\u001b]52;c;ZXZpbA==\u0007\u001b[2J\rOK \u009b31m\u202eevil';
/** An OSC 8 hyperlink whose target the reader never sees. */
const HIDDEN_LINK = 'cache\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007';
/** Markdown and HTML a pull request could smuggle into the PR comment, plus terminal escapes. */
const MARKDOWN_HOSTILE =
  '</details><img src=x onerror=alert(1)><script>x</script>\n# Heading [link](https://evil) ![i](https://evil/i.png) @octocat #1 \u001b]52;c;ZXZpbA==\u0007\r\u202eend';

/** No raw byte that acts on a terminal: ESC, BEL, C1 CSI (U+009B), CR, and no bidi override. */
function expectInert(text: string, where: string): void {
  for (const [name, ch] of [
    ['ESC', '\u001b'],
    ['BEL', '\u0007'],
    ['C1 CSI', '\u009b'],
    ['CR', '\r'],
    ['U+202E', '\u202e'],
  ] as const) {
    expect(text.includes(ch), `${where} holds a raw ${name}`).toBe(false);
  }
}

const NOW = ['--now', DEMO_NOW];
let dump: string;

/** examples/demo with hostile text where a cluster and an AWS account put foreign strings. */
function hostileDump(): string {
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-hostile-'));
  cpSync(DEMO, dir, { recursive: true });
  const edit = (file: string, change: (doc: any) => void) => {
    const path = join(dir, file);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    change(doc);
    writeFileSync(path, JSON.stringify(doc, null, 2));
  };
  // CA's events: every NotTriggerScaleUp message
  edit('events.json', (d) => {
    for (const e of d.items) if (e.reason === 'NotTriggerScaleUp') e.message = `${e.message} ${TERMINAL_HOSTILE}`;
  });
  // the safe-to-evict-local-volumes annotation on pods that need it (scale-down evidence quotes it)
  edit('pods.json', (d) => {
    for (const p of d.items)
      if (p.metadata.name.startsWith('ebs-csi-controller-'))
        p.metadata.annotations = {
          ...p.metadata.annotations,
          'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes': HIDDEN_LINK,
        };
  });
  // an ASG name and a tag value, and the scaling activities naming it; a failed activity's AWS message
  const spot = `demo-spot${TERMINAL_HOSTILE}`;
  edit('asgs.json', (d) => {
    for (const g of d.AutoScalingGroups) {
      // a per-group CA option as a tag: an invalid value is quoted in a note
      if (g.AutoScalingGroupName === 'demo-general')
        g.Tags = [
          ...g.Tags,
          {
            Key: 'k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownutilizationthreshold',
            Value: TERMINAL_HOSTILE,
            PropagateAtLaunch: false,
            ResourceId: 'demo-general',
            ResourceType: 'auto-scaling-group',
          },
        ];
      if (g.AutoScalingGroupName !== 'demo-spot') continue;
      g.AutoScalingGroupName = spot;
      g.Tags = [...g.Tags, { Key: 'team', Value: TERMINAL_HOSTILE, PropagateAtLaunch: true, ResourceId: spot, ResourceType: 'auto-scaling-group' }];
    }
  });
  edit('scaling-activities.json', (d) => {
    for (const a of d.Activities) {
      if (a.AutoScalingGroupName === 'demo-spot') a.AutoScalingGroupName = spot;
      if (a.StatusCode === 'Failed') {
        a.StatusMessage = `${a.StatusMessage} ${TERMINAL_HOSTILE}`;
        a.Cause = `${a.Cause} ${TERMINAL_HOSTILE}`;
      }
    }
  });
  // CA's status ConfigMap: the cluster-wide health line
  edit('configmaps-kube-system.json', (d) => {
    d.data.status = d.data.status.replace('    status: Healthy', `    status: Healthy${TERMINAL_HOSTILE}`);
  });
  // an object of a kind casdoctor does not read: the loader's warning names the kind
  writeFileSync(join(dir, 'other.json'), JSON.stringify({ apiVersion: 'v1', kind: `Evil${TERMINAL_HOSTILE}`, metadata: { name: 'x' } }));
  return dir;
}

beforeAll(() => {
  dump = hostileDump();
});

describe('foreign text from a cluster and an AWS account reaches the terminal only as visible escapes', () => {
  it('why-pending shows an event message with OSC 52, CSI 2J, CR, C1 and U+202E as \\x1b, \\r, \\x9b and \\u202e', () => {
    const r = cli(['why-pending', '--all', '--from', dump, ...NOW]);
    expect(r.code, r.stderr).toBe(1);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain('\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\rOK \\x9b31m\\u202eevil');
    // the renamed ASG shows up in the node-group tables, escaped the same way
    expect(r.stdout).toContain('demo-spot\\x1b]52;c;');
    // warnings on stderr quote foreign text too (here a kind casdoctor does not read)
    expect(r.stderr).toMatch(/Evil\\(x1b|u001b)\]52;c;/);
  });

  it('why-pending -o json keeps the data (an event message parses back byte for byte) with no raw ESC, C1 or U+202E in stdout', () => {
    const r = cli(['why-pending', '--all', '--from', dump, ...NOW, '-o', 'json']);
    expect(r.code).toBe(1);
    expectInert(r.stdout, 'stdout');
    expect(r.stdout).toContain('\\u001b]52;c;');
    expect(r.stdout).toContain('\\u009b31m\\u202eevil');
    const report = JSON.parse(r.stdout) as { pods: Array<{ caEvent?: { message: string } }> };
    expect(report.pods.some((p) => p.caEvent?.message.endsWith(TERMINAL_HOSTILE))).toBe(true);
  });

  it('scale-down-blockers shows an OSC 8 link hidden in safe-to-evict-local-volumes as text', () => {
    const r = cli(['scale-down-blockers', '--from', dump, ...NOW]);
    expect(r.code).toBe(0);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain('cache\\x1b]8;;https://evil.example/\\x07click');
    expect(r.stdout).toMatch(/scaledownutilizationthreshold="?\\(x1b|u001b)\]52;c;/);
  });

  it.each([['asg-audit'], ['scale-down-blockers']])('%s -o json writes no raw escape byte and parses', (command) => {
    const r = cli([command, '--from', dump, ...NOW, '-o', 'json']);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(JSON.parse(r.stdout).command).toBe(command);
  });

  it('asg-audit shows an ASG name, a tag value and a failed activity message with escapes made visible', () => {
    const r = cli(['asg-audit', '--from', dump, ...NOW]);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain('demo-spot\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\rOK');
    expect(r.stdout).toMatch(/sufficient m5\.large capacity[^\n]*\\x1b\]52;c;/);
  });

  it('the overview (no subcommand) shows the status ConfigMap and ASG findings with escapes made visible', () => {
    const r = cli(['--from', dump, ...NOW]);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain('status ConfigMap: Healthy\\x1b]52;c;');
  });

  it('an error quoting a malformed JSON file (V8 quotes its content) shows the escapes, never the bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-hostile-json-'));
    writeFileSync(join(dir, 'pods.json'), `{"kind": "PodList", "items": [\u001b]52;c;ZXZpbA==\u0007\u001b[2J\r\u202e]}`);
    const r = cli(['why-pending', '--all', '--from', dir, ...NOW]);
    expect(r.code).toBe(2);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stderr).toMatch(/^error: /);
  });
});

describe('preflight on manifests from a pull request', () => {
  let dir: string;
  const file = 'hostile`|<img src=x onerror=alert(1)>.yaml';
  const run = (format: string) =>
    spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'casdoctor.js'), 'preflight', '-f', dir, '--eksctl', 'examples/preflight/cluster.yaml', ...NOW, '-o', format],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        timeout: 60_000,
      },
    );

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'casdoctor-hostile-pf-'));
    mkdirSync(dir, { recursive: true });
    // an annotation CA reads, and a PDB selector whose value lands in a finding's message
    writeFileSync(
      join(dir, file),
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: session-store
  namespace: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: session-store
  template:
    metadata:
      labels:
        app: session-store
      annotations:
        cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: ${JSON.stringify(MARKDOWN_HOSTILE)}
    spec:
      containers:
        - name: redis
          image: redis:7.4
          resources:
            requests:
              cpu: 200m
              memory: 1Gi
      volumes:
        - name: data
          emptyDir: {}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: api
  namespace: web
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: ${JSON.stringify(MARKDOWN_HOSTILE)}
`,
    );
  });

  it.each(['table', 'sarif', 'junit', 'json'])('-o %s writes no raw escape byte', (format) => {
    const r = run(format);
    expect(r.status).toBe(0);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    if (format === 'table') expect(r.stdout).toContain('\\x1b]52;c;ZXZpbA==\\x07\\r\\u202eend');
    if (format === 'junit') expect(r.stdout).toContain('\\x1b]52;c;ZXZpbA==\\x07\\r\\u202eend');
    if (format === 'sarif' || format === 'json') JSON.parse(r.stdout);
  });

  it('-o markdown keeps every injected element, link, heading and mention inert, in the tables, the Where cell and the details', () => {
    const r = run('markdown');
    expect(r.status).toBe(0);
    expectInert(r.stdout, 'stdout');
    const md = r.stdout;
    // the foreign text is there, escaped, in the table, the details and the evidence
    expect(md).toContain('&lt;/details>&lt;img src=x onerror=alert(1)>&lt;script>');
    expect(md).toContain('\\[link\\](https://evil)');
    const prose = outsideCode(md);
    // casdoctor writes one <details> (no suppressed findings here); nothing foreign opens or closes one
    expect(prose.match(/<details>/g)).toHaveLength(1);
    expect(prose.match(/<\/details>/g)).toHaveLength(1);
    expect(prose).not.toMatch(/<img|<script/i);
    // every link is one of casdoctor's docs links
    for (const m of prose.matchAll(/(?<!\\)\]\(([^)]*)\)/g))
      expect(m[1]).toMatch(/^https:\/\/github\.com\/casdoctor\/casdoctor\/blob\/main\/docs\/checks\//);
    expect(prose).not.toMatch(/(?<!\\)!\[/);
    expect(prose).not.toMatch(/^ {0,3}#{1,6} +Heading/m);
    expect(prose).not.toContain('@octocat');
    expect(prose).not.toMatch(/(?<!&)#1\b/);
    // each table row still has exactly five cells: the file name's | and ` did not split or end a cell
    const rows = md.split('\n').filter((l) => /^\| (❌|⚠️|ℹ️)/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(cells(row)).toHaveLength(5);
  });
});

/** The markdown outside fenced code blocks and code spans (where nothing renders as markup), as CommonMark reads it. */
function outsideCode(md: string): string {
  const noFences = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1\s*$/gm, '');
  // a code span: a backtick run, then the shortest text up to a run of the same length
  return noFences.replace(/(?<![`\\])(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, '');
}

/** The cells of a GFM table row: split on pipes that are not backslash-escaped. */
function cells(row: string): string[] {
  return row
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/);
}

describe('the spinner', () => {
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

  it('is wanted only at a terminal of a sane width, and only for a human format', () => {
    expect(wantsSpinner({ isTTY: true, columns: 80 }, 'table')).toBe(true);
    expect(wantsSpinner({ isTTY: true, columns: SPINNER_MIN_COLUMNS }, 'table')).toBe(true);
    expect(wantsSpinner({ isTTY: true, columns: 0 }, 'table')).toBe(false);
    expect(wantsSpinner({ isTTY: true, columns: undefined }, 'table')).toBe(false);
    expect(wantsSpinner({ isTTY: false, columns: 80 }, 'table')).toBe(false);
    for (const machine of ['json', 'sarif', 'junit', 'markdown']) expect(wantsSpinner({ isTTY: true, columns: 80 }, machine)).toBe(false);
  });

  it.skipIf(!hasScript).each(['json', 'table'])(
    'is not drawn on a pty that reports 0 columns: -o %s ends and writes its report',
    (format) => {
      const out = join(mkdtempSync(join(tmpdir(), 'casdoctor-pty-')), 'out');
      const cmd = `stty cols 0; ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin', 'casdoctor.js'))} why-pending --all --from ${JSON.stringify(DEMO)} --now ${DEMO_NOW} -o ${format} > ${JSON.stringify(out)}`;
      // util-linux script gives the command a pty on stdin/stderr; before the fix ora redrew forever at 0 columns
      const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...USER_TERMINAL_ENV, NO_COLOR: '1' },
      });
      expect(r.signal, 'the run hung (or flooded the pty) and was killed').toBeNull();
      expect(r.status).toBe(1);
      const report = readFileSync(out, 'utf8');
      if (format === 'json') expect(JSON.parse(report).command).toBe('why-pending');
      else expect(report).toMatch(/^casdoctor why-pending/);
      // nothing on the pty but what the shell echoes: no spinner frames
      expect(r.stdout).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    },
  );

  it.skipIf(!hasScript)('is still drawn on a pty of 80 columns for the readable report', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'casdoctor-pty-')), 'out');
    const cmd = `stty cols 80; ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin', 'casdoctor.js'))} why-pending --all --from ${JSON.stringify(DEMO)} --now ${DEMO_NOW} > ${JSON.stringify(out)}`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', timeout: 20_000, env: USER_TERMINAL_ENV });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] gathering/);
  });
});
