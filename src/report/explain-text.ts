// `casdoctor explain` at a terminal: a check's Markdown page rendered for reading, not for GitHub.
import { PLAIN, type Style } from './style.js';
import { wrapWords } from './table.js';

const inline = (s: string, st: Style) =>
  s
    .replace(/\*\*([^*]+)\*\*/g, (_m, b: string) => st.bold(b))
    .replace(/`([^`]+)`/g, (_m, c: string) => st.cyan(c))
    .replace(/\[([^\]]+)\]\(([^)]+)\)/g, (_m, text: string, url: string) => `${text} (${url})`);

/**
 * Headings bold, paragraphs and list items joined from their hard-wrapped source lines and wrapped to the terminal's
 * width, code blocks indented and left exactly as written (a command is copied from them).
 */
export function renderMarkdownForTerminal(md: string, width: number, st: Style = PLAIN): string {
  const out: string[] = [];
  let para: string[] = [];
  let bullet = '';
  const flush = () => {
    if (para.length) out.push(...wrapWords(`${bullet}${inline(para.join(' '), st)}`, width, bullet.length));
    para = [];
    bullet = '';
  };
  let fence = false;
  for (const line of md.split('\n')) {
    if (/^```/.test(line)) {
      flush();
      fence = !fence;
      continue;
    }
    if (fence) {
      out.push(st.dim(`    ${line}`));
      continue;
    }
    const h = /^(#+)\s+(.*)$/.exec(line);
    if (h) {
      flush();
      if (out.length && out[out.length - 1] !== '') out.push('');
      out.push(st.bold(h[1].length === 1 ? h[2].toUpperCase() : h[2]));
      continue;
    }
    const li = /^(\s*)[-*]\s+(.*)$/.exec(line);
    if (li) {
      flush();
      // "  • text" continues under "text"
      bullet = `${li[1]}  • `;
      para.push(li[2]);
      continue;
    }
    if (line.trim() === '') {
      flush();
      if (out.length && out[out.length - 1] !== '') out.push('');
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return `${out.join('\n').trim()}\n`;
}
