// Reading the files a user hands over (--from, -f, --config, --eksctl, --node-groups, --iam-policy): only regular files
// are read (a FIFO or a device would block forever or never end), and every failure is an InputError naming the file.
import { constants } from 'node:fs';
import { lstat, open, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { InputError } from '../model/errors.js';

/** What went wrong with a file, in words (for an errno error); "cannot be read (CODE)" for the rare rest. */
export function fileProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    default:
      return `cannot be read (${code ?? (e instanceof Error ? e.message : String(e))})`;
  }
}

/** An InputError "<label> <path>: <problem>" for an error from the file system. */
export function fileError(label: string, path: string, e: unknown): InputError {
  if (e instanceof InputError) return e;
  return new InputError(`${label ? `${label} ` : ''}${path}: ${fileProblem(e)}`, path);
}

/**
 * The text of one regular file (symlinks to one are followed). A FIFO, socket, device or directory is an InputError
 * "not a regular file": opened without O_NONBLOCK, a FIFO with no writer blocks the open forever.
 */
export async function readRegularFile(label: string, path: string): Promise<string> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw fileError(label, path, e);
  }
  let bytes: Buffer;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new InputError(`${label ? `${label} ` : ''}${path}: not a regular file`, path);
    bytes = await fh.readFile();
  } catch (e) {
    throw fileError(label, path, e);
  } finally {
    await fh.close();
  }
  return inputText(await decompressed(label, path, bytes));
}

/** A file's compression, from its magic bytes (never its name): gzip (1f 8b) or zstd (28 b5 2f fd). */
export function compressionOf(head: Uint8Array): 'gzip' | 'zstd' | undefined {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) return 'zstd';
  return undefined;
}

/**
 * How much a compressed input may expand to: V8's longest string (what a text input can be at all). A decompression
 * bomb stops here instead of filling memory.
 */
export const MAX_DECOMPRESSED_BYTES = (1 << 29) - 24;

type ZstdZlib = {
  zstdDecompress?: (b: Buffer, o: { maxOutputLength: number }, cb: (e: Error | null, r: Buffer) => void) => void;
  createZstdDecompress?: () => NodeJS.ReadWriteStream;
};
/** zstd where the runtime has it (Node ≥ 22.15); Node 20's zlib has none. */
export const zstdSupported = (): boolean => typeof (zlib as ZstdZlib).zstdDecompress === 'function';

/** What to do with a zstd file on a runtime without zstd. */
export function zstdUnsupported(label: string, path: string): InputError {
  return new InputError(
    `${label ? `${label} ` : ''}${path}: zstd-compressed, and this Node.js (${process.version}) cannot decompress zstd: decompress it first (\`zstd -d -k ${path}\`) or use gzip`,
    path,
  );
}

/**
 * The bytes of an input, decompressed when they are gzip or zstd (by magic bytes), at most `max` bytes of output: more
 * is an InputError (a bomb, or a dump too large to hold as text) that says how to read it instead.
 */
export async function decompressed(label: string, path: string, bytes: Buffer, max = MAX_DECOMPRESSED_BYTES): Promise<Buffer> {
  const kind = compressionOf(bytes);
  if (!kind) return bytes;
  const at = `${label ? `${label} ` : ''}${path}`;
  try {
    if (kind === 'gzip') return await promisify(zlib.gunzip)(bytes, { maxOutputLength: max });
    const z = zlib as ZstdZlib;
    if (!z.zstdDecompress) throw zstdUnsupported(label, path);
    return await promisify(z.zstdDecompress)(bytes, { maxOutputLength: max });
  } catch (e) {
    if (e instanceof InputError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError)
      throw new InputError(
        `${at}: decompresses to more than ${Math.floor(max / (1 << 20))} MiB (a decompression bomb?); refused: decompress it yourself and pass the result if it is a real dump`,
        path,
      );
    throw new InputError(`${at}: ${kind} data that cannot be decompressed (${e instanceof Error ? e.message : String(e)})`, path);
  }
}

/** UTF-8 text of an input, without the byte-order mark PowerShell's redirects write (lines and columns stay right). */
export function inputText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return stripBom(text);
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Whether a walk reads a file of this name: its extension is one of `extensions` once a compression suffix (.gz, .zst)
 * and a rotation number (logrotate's `.1`, `.log.1.gz`) are set aside. Content decides what the file is.
 */
export function loadableName(name: string, extensions: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  if (extensions.has(extname(lower))) return true;
  const base = lower.replace(/\.(?:gz|zst|zstd)$/, '').replace(/\.\d{1,4}$/, '');
  return base !== lower && extensions.has(extname(base));
}

/**
 * The loadable files under a path (a file, or a directory read recursively in name order; dot-files skipped). A symlink
 * inside a directory is followed when it points at a regular file (kubectl users link dumps in); one that points at a
 * directory, dangles or points at a FIFO/device is skipped with a warning, never silently. `label` names the flag.
 */
export async function listInputFiles(
  label: string,
  path: string,
  extensions: ReadonlySet<string>,
  warnings: string[],
): Promise<string[]> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(path);
  } catch (e) {
    throw fileError(label, path, e);
  }
  if (st.isFile()) return [path];
  if (!st.isDirectory()) throw new InputError(`${label} ${path}: not a regular file or directory`, path);
  return walk(label, path, extensions, warnings);
}

async function walk(label: string, dir: string, extensions: ReadonlySet<string>, warnings: string[]): Promise<string[]> {
  let entries;
  try {
    entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch (e) {
    throw fileError(label, dir, e);
  }
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const full = join(dir, e.name);
    const loadable = loadableName(e.name, extensions);
    if (e.isDirectory()) out.push(...(await walk(label, full, extensions, warnings)));
    else if (e.isFile()) {
      if (loadable) out.push(full);
    } else if (e.isSymbolicLink()) {
      let target: Awaited<ReturnType<typeof stat>> | undefined;
      try {
        target = await stat(full);
      } catch (err) {
        warnings.push(`${full}: symbolic link not followed (${fileProblem(err)}); skipped`);
        continue;
      }
      // Directories are not followed: a link to a parent would loop; name the target directory itself instead.
      if (target.isDirectory())
        warnings.push(`${full}: symbolic link to a directory not followed; pass its target to ${label} to read it`);
      else if (!target.isFile()) {
        if (loadable) warnings.push(`${full}: symbolic link to something that is not a regular file; skipped`);
      } else if (loadable) out.push(full);
    } else if (loadable) warnings.push(`${full}: not a regular file; skipped`);
  }
  return out;
}

/** lstat, or undefined when the path does not exist. */
export async function lstatOrUndefined(path: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** One warning per distinct text, repeats counted: "<text> (and 9,999,999 more like this)". */
export class WarningCounter {
  private readonly counts = new Map<string, number>();
  add(text: string): void {
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1);
  }
  /** The warnings in first-seen order, then forgets them. */
  flush(): string[] {
    const out = [...this.counts].map(([text, n]) =>
      n > 1 ? `${text} (and ${(n - 1).toLocaleString('en-US')} more like this)` : text,
    );
    this.counts.clear();
    return out;
  }
}

/** A stack overflow (hostile nesting) from a recursive parser or walker. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/** YAML's alias-expansion guard (yaml: "Excessive alias count indicates a resource exhaustion attack"). */
export function isAliasBomb(e: unknown): boolean {
  return e instanceof Error && /alias count/i.test(e.message);
}

/** How many alias expansions a YAML input may need: real manifests and dumps use a handful. */
export const MAX_YAML_ALIASES = 100;
/** Lists inside lists a dump may have (kubectl prints one List; a JSON array of Lists is two levels). */
export const MAX_LIST_NESTING = 8;

/** Nesting deeper than the parser's stack (or than MAX_LIST_NESTING lists): no kubectl or aws output looks like this. */
export function tooDeep(file: string, label = ''): InputError {
  return new InputError(
    `${label ? `${label} ` : ''}${file}: too deep: values nested deeper than casdoctor reads; not a kubectl or aws dump`,
    file,
  );
}

export function aliasBomb(file: string): InputError {
  return new InputError(
    `${file}: YAML aliases expand beyond ${MAX_YAML_ALIASES} references (an alias bomb?); refused`,
    file,
  );
}
