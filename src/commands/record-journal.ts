// `casdoctor record`'s journal: a directory of JSON-lines files, bounded in size and age. Each line is one object as a
// watch or a list saw it (trimmed to what `history` reads). `current.jsonl` takes the appends; past the file limit it is
// renamed to `journal-<seq>.jsonl` and the oldest files go until the directory is under its limit again, so the
// directory never holds more than maxBytes. `state.json` keeps each resource's last resourceVersion (written by
// rename), so a restart resumes the watches where they stopped; `casdoctor-record.json` marks the directory.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_MARKER } from '../gather/history-files.js';
import { UsageError } from '../model/errors.js';

const CURRENT = 'current.jsonl';
const STATE = 'state.json';
const ROTATED = /^journal-(\d{8})\.jsonl$/;

export interface JournalLimits {
  /** The whole directory's journal files; default 256 MiB. */
  maxBytes: number;
  /** Rotated files older than this are removed; default 7 days. */
  maxAgeMs: number;
  /** One file; default maxBytes / 16. */
  maxFileBytes?: number;
}

export interface JournalRecord {
  /** When casdoctor saw it (ISO). */
  at: string;
  type: 'LISTED' | 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: string;
  object: Record<string, unknown>;
}

export class Journal {
  private size = 0;
  private total = 0;
  private seq = 0;
  private versions: Record<string, string> = {};
  readonly fileLimit: number;
  /** Records not written because one alone is larger than a file may be. */
  skipped = 0;

  constructor(
    readonly dir: string,
    readonly limits: JournalLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.fileLimit = Math.max(4096, Math.floor(limits.maxFileBytes ?? limits.maxBytes / 16));
    if (this.fileLimit > limits.maxBytes) throw new UsageError(`record: the file limit (${this.fileLimit} bytes) is over the directory limit (${limits.maxBytes} bytes)`);
    mkdirSync(dir, { recursive: true });
    const marker = join(dir, JOURNAL_MARKER);
    if (!existsSync(marker)) {
      if (readdirSync(dir).length > 0) throw new UsageError(`record: ${dir} is not empty and holds no casdoctor journal (${JOURNAL_MARKER}); give an empty or new directory`);
      writeFileSync(marker, `${JSON.stringify({ kind: 'casdoctor-record', version: 1 })}\n`);
    }
    try {
      this.versions = JSON.parse(readFileSync(join(dir, STATE), 'utf8')).resourceVersions ?? {};
    } catch {
      this.versions = {};
    }
    for (const f of this.rotated()) this.seq = Math.max(this.seq, f.seq);
    this.size = existsSync(join(dir, CURRENT)) ? statSync(join(dir, CURRENT)).size : 0;
    this.total = this.size + this.rotated().reduce((a, f) => a + f.bytes, 0);
    this.prune(0);
  }

  /** The last resourceVersion a resource's watch reached, to resume from. */
  version(resource: string): string | undefined {
    return this.versions[resource];
  }

  setVersion(resource: string, rv: string | undefined): void {
    if (rv === undefined) delete this.versions[resource];
    else this.versions[resource] = rv;
    const tmp = join(this.dir, `${STATE}.tmp`);
    writeFileSync(tmp, JSON.stringify({ resourceVersions: this.versions }));
    renameSync(tmp, join(this.dir, STATE));
  }

  append(r: JournalRecord): void {
    const line = `${JSON.stringify(r)}\n`;
    const bytes = Buffer.byteLength(line);
    if (bytes > this.fileLimit) {
      this.skipped++;
      return;
    }
    if (this.size + bytes > this.fileLimit) this.rotate();
    this.prune(bytes);
    appendFileSync(join(this.dir, CURRENT), line);
    this.size += bytes;
    this.total += bytes;
  }

  /** Bytes of journal on disk now. */
  get bytes(): number {
    return this.total;
  }

  private rotate(): void {
    if (this.size === 0) return;
    this.seq++;
    renameSync(join(this.dir, CURRENT), join(this.dir, `journal-${String(this.seq).padStart(8, '0')}.jsonl`));
    this.size = 0;
  }

  private rotated(): Array<{ name: string; seq: number; bytes: number; mtime: number }> {
    return readdirSync(this.dir)
      .map((name) => ({ name, m: ROTATED.exec(name) }))
      .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
      .map(({ name, m }) => {
        const st = statSync(join(this.dir, name));
        return { name, seq: Number(m[1]), bytes: st.size, mtime: st.mtimeMs };
      })
      .sort((a, b) => a.seq - b.seq);
  }

  /** Removes the oldest rotated files until `incoming` more bytes fit, and every file past the age limit. */
  private prune(incoming: number): void {
    const files = this.rotated();
    const oldest = this.now() - this.limits.maxAgeMs;
    for (const f of files) {
      if (this.total + incoming <= this.limits.maxBytes && f.mtime >= oldest) break;
      unlinkSync(join(this.dir, f.name));
      this.total -= f.bytes;
    }
  }
}
