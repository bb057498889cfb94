export const EXIT = { ok: 0, findings: 1, usage: 2, incomplete: 3 } as const;

export interface RunResult {
  exitCode: number;
}

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name' | 'sarif' | 'junit' | 'markdown';
export type FailOn = 'error' | 'warning' | 'info' | 'never';

export interface GlobalOptions {
  from: string[];
  kubeconfig?: string;
  context?: string;
  profile?: string;
  region?: string;
  requestTimeout: string;
  /** --ca-log-since: the window of CA's log read live (default 1h). */
  caLogSince?: string;
  now?: string;
  caArgs?: string;
  output: OutputFormat;
  failOn: FailOn;
  color: boolean;
  /** --color=always|never|auto (FORCE_COLOR, NO_COLOR): `always` colours a pipe too; absent = auto. */
  colorMode?: 'always' | 'never' | 'auto';
  debug: boolean;
  /** --yes: never prompt (pickers, menus), even at a terminal. */
  yes?: boolean;
}

/** Everything a command touches outside itself, injected so tests run commands without a terminal or network. */
export interface Deps {
  stdout(s: string): void;
  stderr(s: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY?: boolean;
  /** The terminal, for interactive prompts (present only when casdoctor runs in one). */
  terminal?: { input: NodeJS.ReadStream; output: NodeJS.WriteStream };
  /** Registers a handler for Ctrl-C (watch mode); returns a function that removes it. */
  onInterrupt?(handler: () => void): () => void;
  terminalWidth?: number;
  realNow(): Date;
  /** Test hook: options passed through to the live gatherer (loopback endpoints, fast retries). */
  liveOverrides?: Record<string, unknown>;
  /** Test hook: load whole objects from --from, to prove that keeping only the fields casdoctor reads changes nothing. */
  loadAllFields?: boolean;
}
