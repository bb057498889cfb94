// src/report/sanitize.ts: the one place foreign text becomes output. Tables of inputs for each function, then the
// renderers: foreign escapes are shown, while the colours and links casdoctor adds itself keep working. Issue 13.
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/findings.js';
import type { PodReport } from '../../src/model/why-pending.js';
import { findingBlock } from '../../src/report/findings-text.js';
import { xmlEscape } from '../../src/report/junit.js';
import {
  guardTerminalOutput,
  safeCodeSpan,
  safeJsonText,
  safeLines,
  safeMarkdown,
  safeText,
  truncate,
} from '../../src/report/sanitize.js';
import { hyperlink, terminalStyle } from '../../src/report/style.js';
import { renderWhyPendingText } from '../../src/report/why-pending-text.js';

describe('safeText (one line, for terminals and plain text)', () => {
  it.each([
    ['plain text is returned as is', 'web/api-7d9c-x2x8q: 0/3 nodes', 'web/api-7d9c-x2x8q: 0/3 nodes'],
    ['non-ASCII text stays', 'zone ü · ✔ ⚠️ 東京', 'zone ü · ✔ ⚠️ 東京'],
    ['OSC 52 (clipboard write) shows ESC and BEL', '\u001b]52;c;ZXZpbA==\u0007', '\\x1b]52;c;ZXZpbA==\\x07'],
    ['OSC 8 (hidden link) shows its target', '\u001b]8;;https://evil\u0007x\u001b]8;;\u0007', '\\x1b]8;;https://evil\\x07x\\x1b]8;;\\x07'],
    ['CSI 2J (clear screen)', 'a\u001b[2Jb', 'a\\x1b[2Jb'],
    ['CR cannot overwrite the line', 'bad\rgood', 'bad\\rgood'],
    ['a newline cannot forge a line', 'x\n✔ 0 errors', 'x\\n✔ 0 errors'],
    ['a tab cannot shift a column', 'a\tb', 'a\\tb'],
    ['NUL, BS and DEL', '\u0000\u0008\u007f', '\\x00\\x08\\x7f'],
    ['C1 CSI (U+009B) and OSC (U+009D)', '\u009b2J\u009d', '\\x9b2J\\x9d'],
    ['bidi override U+202E (Trojan Source)', 'abc\u202edef', 'abc\\u202edef'],
    ['bidi embeddings U+202A-202D', '\u202a\u202b\u202c\u202d', '\\u202a\\u202b\\u202c\\u202d'],
    ['bidi isolates U+2066-2069', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['LRM, RLM and the Arabic letter mark', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
  ])('%s', (_name, input, expected) => {
    expect(safeText(input)).toBe(expected);
  });

  it('turns undefined and null into empty text and numbers into their digits', () => {
    expect(safeText(undefined)).toBe('');
    expect(safeText(null)).toBe('');
    expect(safeText(42)).toBe('42');
  });

  it('cuts a long value and counts what was cut, before escaping (an escape is never split)', () => {
    expect(safeText('a'.repeat(30), { max: 10 })).toBe(`${'a'.repeat(10)}…(+20 chars)`);
    expect(safeText(`${'\u001b'.repeat(5)}tail`, { max: 3 })).toBe('\\x1b\\x1b\\x1b…(+6 chars)');
    expect(safeText('x'.repeat(10_000))).toBe('x'.repeat(10_000));
    expect(safeText('x'.repeat(10_001))).toBe(`${'x'.repeat(10_000)}…(+1 chars)`);
  });

  it('never cuts a surrogate pair in half', () => {
    expect(truncate('ab😀cd', 3)).toBe('ab…(+4 chars)');
    expect(truncate('ab😀cd', 4)).toBe('ab😀…(+2 chars)');
  });
});

describe('safeLines (a multi-line block: remediation snippets, notes, errors)', () => {
  it.each([
    ['keeps line feeds and indentation', 'fix:\n  kubectl annotate pod x\n', 'fix:\n  kubectl annotate pod x\n'],
    ['keeps tabs', 'a:\tb', 'a:\tb'],
    ['turns CRLF into LF (nothing is overwritten by it)', 'a\r\nb', 'a\nb'],
    ['shows a lone CR', 'a\rb', 'a\\rb'],
    ['shows ESC and bidi characters', 'x\u001b[2J\u202e\n', 'x\\x1b[2J\\u202e\n'],
  ])('%s', (_name, input, expected) => {
    expect(safeLines(input)).toBe(expected);
  });
});

describe('safeMarkdown (GitHub-flavoured markdown for a PR comment)', () => {
  it.each([
    ['plain prose is unchanged', 'Deployment web/cache fits general (memory 7680Mi > 7390Mi free).', 'Deployment web/cache fits general (memory 7680Mi > 7390Mi free).'],
    ['HTML cannot open or close an element', '</details><img src=x onerror=alert(1)>', '&lt;/details>&lt;img src=x onerror=alert(1)>'],
    ['an ampersand is literal', 'a &amp; b', 'a &amp;amp; b'],
    ['links and images are text', '[a](https://evil) ![i](https://evil/i.png)', '\\[a\\](https://evil) !\\[i\\](https://evil/i.png)'],
    ['code, emphasis and strikethrough are text', '`x` *b* _i_ ~~s~~', '\\`x\\` \\*b\\* \\_i\\_ \\~\\~s\\~\\~'],
    ['a backslash stays a backslash', 'C:\\x', 'C:\\\\x'],
    ['a pipe cannot split a table cell', 'a | b', 'a \\| b'],
    ['@mentions do not notify', '@octocat and @org/team', '@&#8203;octocat and @&#8203;org/team'],
    ['issue references do not link', 'see #1, owner/repo#23 and GH-4', 'see #&#8203;1, owner/repo#&#8203;23 and GH&#8203;-4'],
    ['control and bidi characters show as (escaped) escapes', '\u001b[2J\u202e', '\\\\x1b\\[2J\\\\u202e'],
  ])('%s', (_name, input, expected) => {
    expect(safeMarkdown(input)).toBe(expected);
    expect(safeMarkdown(input, { cell: true })).toBe(expected);
  });

  it.each([
    ['a heading', '# Heading', '\\# Heading'],
    ['an indented heading', '   ## h', '   \\## h'],
    ['a quote', '> quoted', '\\> quoted'],
    ['a list item', '- item', '\\- item'],
    ['a plus list item', '+ item', '\\+ item'],
    ['an ordered list item', '12. item', '12\\. item'],
    ['a setext underline', '===', '\\==='],
  ])('a line of a block cannot open %s', (_name, line, expected) => {
    expect(safeMarkdown(`text\n${line}`)).toBe(`text\n${expected}`);
  });

  it('one-line text after casdoctor\'s "- " cannot open a heading, quote or list inside the list item', () => {
    expect(safeMarkdown('# Heading', { cell: true, lineStart: true })).toBe('\\# Heading');
    expect(safeMarkdown('> q', { cell: true, lineStart: true })).toBe('\\> q');
    expect(safeMarkdown('1) x', { cell: true, lineStart: true })).toBe('1\\) x');
    // mid-line, a value such as a negative priority stays as written
    expect(safeMarkdown('-50', { cell: true })).toBe('-50');
  });

  it('in a table cell, newlines become spaces', () => {
    expect(safeMarkdown('a\nb\r\nc\rd', { cell: true })).toBe('a b c d');
  });
});

describe('safeCodeSpan', () => {
  it.each([
    ['a plain path', 'manifests/web.yaml:3', {}, '`manifests/web.yaml:3`'],
    ['a backtick cannot end the span', 'a`b', {}, '``a`b``'],
    ['a leading backtick is padded', '`a', {}, '`` `a ``'],
    ['in a cell, a pipe is escaped', 'a|b', { cell: true }, '`a\\|b`'],
    ['control characters are visible', 'a\u001b\nb', {}, '`a\\x1b\\nb`'],
  ])('%s', (_name, input, o, expected) => {
    expect(safeCodeSpan(input, o)).toBe(expected);
  });
});

describe('safeJsonText', () => {
  it('writes the characters JSON.stringify leaves raw as \\u escapes, and the data parses back unchanged', () => {
    const data = { m: 'a\u001b[2J\u009b\u007f\u202e\u2028b', plain: 'x' };
    const text = safeJsonText(JSON.stringify(data));
    expect(text).toBe('{"m":"a\\u001b[2J\\u009b\\u007f\\u202e\\u2028b","plain":"x"}');
    expect(JSON.parse(text)).toEqual(data);
  });
});

describe('guardTerminalOutput (the last net on stdout)', () => {
  it('keeps the colours and docs links casdoctor writes, and shows every other escape', async () => {
    const s = await terminalStyle(true);
    const own = `${s.bold('b')}${s.dim('d')}${s.red('r')}${s.green('g')}${s.yellow('y')}${s.cyan('c')} ${hyperlink('id', 'https://github.com/casdoctor/casdoctor/blob/main/docs/checks/x.md')}\n`;
    expect(guardTerminalOutput(own)).toBe(own);
    expect(guardTerminalOutput('a\u001b]52;c;eA==\u0007\u001b[8mhidden\u001b[2J\r\u202e\tz\n')).toBe(
      'a\\x1b]52;c;eA==\\x07\\x1b[8mhidden\\x1b[2J\\r\\u202e\tz\n',
    );
  });

  it('lets no OSC 8 link through but those to casdoctor\'s docs', () => {
    expect(guardTerminalOutput('\u001b]8;;https://evil.example/\u0007x\u001b]8;;\u0007')).toBe(
      '\\x1b]8;;https://evil.example/\\x07x\u001b]8;;\u0007',
    );
  });

  it('keeps the clear-screen that starts a --watch round, and only there', () => {
    expect(guardTerminalOutput('\u001b[H\u001b[2Jround 2')).toBe('\u001b[H\u001b[2Jround 2');
    expect(guardTerminalOutput('x\u001b[H\u001b[2J')).toBe('x\\x1b[H\\x1b[2J');
  });
});

describe('xmlEscape (JUnit)', () => {
  it('shows control and bidi characters instead of emitting them (raw ESC is not even valid XML)', () => {
    expect(xmlEscape('<a>\u001b[2J\r\u202e & "q"\n')).toBe('&lt;a&gt;\\x1b[2J\\r\\u202e &amp; &quot;q&quot;\n');
  });
});

const HOSTILE = '\u001b]52;c;ZXZpbA==\u0007\u001b[2J\r\u202e';

describe('renderers sanitize foreign values before styling them', () => {
  it('why-pending at a colour terminal: casdoctor bolds the pod, CA\'s hostile message is shown as text', async () => {
    const pod: PodReport = {
      namespace: 'web',
      name: `api${HOSTILE}`,
      verdict: 'no-scale-up',
      summary: `no node group fits${HOSTILE}`,
      requests: { [`cpu${HOSTILE}`]: '4' },
      scheduler: { message: `0/3 nodes are available${HOSTILE}`, nodes: [] },
      nodeGroups: [
        {
          name: `ng${HOSTILE}`,
          fits: false,
          reasons: [`Insufficient cpu${HOSTILE}`],
          template: { source: 'asg', instanceType: `m5.large${HOSTILE}` },
          discovered: true,
          minSize: 0,
          maxSize: 10,
          targetSize: 2,
          predicatesPass: false,
          values: `cpu 4 > 1930m free${HOSTILE}`,
          details: [],
        },
      ],
      caEvent: { reason: 'NotTriggerScaleUp', message: `pod didn't trigger scale-up${HOSTILE}`, ageSeconds: 30 },
    };
    const text = renderWhyPendingText(
      {
        pods: [pod],
        findings: [],
        skipped: [{ checkId: 'ca-event-disagrees', reason: 'forbidden', detail: `events${HOSTILE}` }],
        header: { ca: `CA v1.32.1 (kube-system/ca${HOSTILE})`, now: '2026-11-21T10:00:00Z', source: 'from x' },
        notes: [],
        width: 200,
      },
      await terminalStyle(true),
    );
    expect(text).toContain(`\u001b[1mweb/api\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\r\\u202e\u001b[22m`);
    expect(text).toContain("CA said    NotTriggerScaleUp 30s ago: pod didn't trigger scale-up\\x1b]52;c;");
    // the only escapes left are chalk's SGR codes
    expect(text.replace(/\u001b\[\d+m/g, '')).not.toMatch(/[\u001b\u0007\r\u202e]/);
  });

  it('a finding block shows hostile evidence and a hostile fix as text, keeping the fix on its lines', async () => {
    const f: Finding = {
      checkId: 'pod-local-storage',
      severity: 'warning',
      subject: { kind: 'Pod', namespace: 'kube-system', name: 'ebs' },
      message: `Pod kube-system/ebs ${HOSTILE}`,
      evidence: [{ source: `annotation${HOSTILE}`, observed: `cache${HOSTILE}`, expected: `socket-dir${HOSTILE}` }],
      remediation: `kubectl annotate pod ebs x=${HOSTILE}\nor use a PVC`,
      docsUrl: 'https://github.com/casdoctor/casdoctor/blob/main/docs/checks/pod-local-storage.md',
    };
    const text = findingBlock(f, await terminalStyle(false), { links: true });
    // message, one evidence line, the fix on its two lines, the docs link
    expect(text.split('\n')).toHaveLength(5);
    expect(text).toContain('fix: kubectl annotate pod ebs x=\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\r\\u202e\n    or use a PVC');
    expect(text).toContain('(expected socket-dir\\x1b]52;c;');
    // the docs link is casdoctor's own OSC 8 hyperlink and survives
    expect(text).toContain(hyperlink('pod-local-storage', f.docsUrl));
    expect(text.replace(hyperlink('pod-local-storage', f.docsUrl), '')).not.toMatch(/[\u001b\u0007\r\u202e]/);
  });
});
