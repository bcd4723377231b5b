// The API other extensions get from `vscode.extensions.getExtension('readerd.readerd').exports`.

import type * as vscode from 'vscode';
import type { DaemonInfo } from './daemon/manager';
import type { ExpandedMessage, Mention } from './mentions/mentions';
import type { FormattedReadResult, ImageParams, PathItem, PathSpec, ReadFormat, ReadParams, ReadResult } from './protocol';

export type { DaemonInfo, ExpandedMessage, FormattedReadResult, ImageParams, Mention, PathItem, PathSpec, ReadFormat, ReadParams, ReadResult };

export interface ReadFilesOptions extends Omit<ReadParams, 'paths'> {
  /** Cancels the request (`$/cancelRequest` is sent to the daemon). */
  token?: vscode.CancellationToken;
  /** Overrides the `readerd.requestTimeout` setting for this request (ms, 0: none). */
  timeoutMs?: number;
}

export interface ExpandMentionsOptions {
  /**
   * Folder the mentions are relative to. Default: the workspace folders, as readFiles locates
   * relative paths (`@/name/...` names a folder of a multi-root workspace).
   */
  root?: string;
  token?: vscode.CancellationToken;
}

export interface ReaderdApi {
  /** Version of this API; grows when members are added. */
  readonly apiVersion: 1;
  /**
   * Reads the paths in one `read` request. Relative paths resolve against `options.cwd`, else
   * their workspace folder: in a multi-root workspace the folder whose name starts the path
   * (`app/src/main.c`), else the first folder that has it, else the first folder. Each file is
   * fenced to the folder it lies in. Resolves with the whole result (`xml`, `files`, `images`,
   * ...), or with `format` that format's result; per-file failures are in `files[i].code`, not
   * thrown. Throws a ReaderdError (`kind`: `rpc` | `cancelled` | `timeout` | `closed` |
   * `start`) when the request itself fails.
   */
  readFiles(paths: PathSpec[], options?: ReadFilesOptions & { format?: 'xml' }): Promise<ReadResult>;
  readFiles(paths: PathSpec[], options: ReadFilesOptions & { format: Exclude<ReadFormat, 'xml'> }): Promise<FormattedReadResult>;
  /**
   * Finds `@/path`, `@/folder/`, `@"/path with spaces"` and, when the path exists, `@path` in
   * `text` (not in Markdown code), reads everything mentioned
   * in one request (raw text, no line numbers; a folder gives its files, one level, respecting
   * `files.exclude`), and returns the text with each mention replaced by a reference and the
   * `<ReadResults>` XML appended, plus the images to attach.
   */
  expandMentions(text: string, options?: ExpandMentionsOptions): Promise<ExpandedMessage>;
  /** The mentions of `text`, without reading anything. */
  parseMentions(text: string): Mention[];
  /** The daemon's state, pid, restart count and version. */
  daemon(): DaemonInfo;
  /** Fires when the daemon's state changes. */
  readonly onDidChangeDaemonState: vscode.Event<DaemonInfo>;
}
