// The `readerd.*` settings, read in one place. Their defaults are those package.json declares
// (VS Code applies them): none is repeated here.

import * as vscode from 'vscode';

export const SECTION = 'readerd';

/** The settings, as the user (or package.json's default) sets them. */
export interface Settings {
  path: string;
  socket: string;
  requestTimeout: number;
  maxRestartDelay: number;
  lineNumbers: boolean;
  maxImageDimension: number;
  confineToWorkspace: boolean;
  exclude: string[];
  mentionLanguages: string[];
  mentionFiles: string[];
  /** Ask before a read command whose plan passes this many estimated tokens; 0: never ask. */
  confirmAboveTokens: number;
  /** Files one folder gives a read at most (the rest a button away). */
  folderMaxFiles: number;
  /** readImages' endpoint: empty strings leave the daemon's READERD_VISION_* environment. */
  'vision.baseUrl': string;
  'vision.model': string;
  'vision.provider': '' | 'openai' | 'anthropic';
}

/** The settings that shape the daemon or its connection: changing one restarts it. */
export const DAEMON_SETTINGS: ReadonlyArray<keyof Settings> = [
  'path',
  'socket',
  'requestTimeout',
  'maxRestartDelay',
  'confineToWorkspace',
  'exclude',
];

const KEYS: ReadonlyArray<keyof Settings> = [
  'path',
  'socket',
  'requestTimeout',
  'maxRestartDelay',
  'lineNumbers',
  'maxImageDimension',
  'confineToWorkspace',
  'exclude',
  'mentionLanguages',
  'mentionFiles',
  'confirmAboveTokens',
  'folderMaxFiles',
  'vision.baseUrl',
  'vision.model',
  'vision.provider',
];

/** Reads every setting. A value package.json gives no default for would be undefined: none lacks one. */
export function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    out[key] = config.get(key);
  }
  return out as unknown as Settings;
}

/** Calls `listener` with the names of the settings that changed (for example `['socket']`). */
export function onDidChangeSettings(listener: (changed: Array<keyof Settings>) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    const changed = KEYS.filter((key) => e.affectsConfiguration(`${SECTION}.${key}`));
    if (changed.length > 0) {
      listener(changed);
    }
  });
}

/** VS Code's `files.exclude` for a workspace folder (what the Explorer hides). */
export function filesExclude(folder: vscode.Uri): Record<string, unknown> | undefined {
  return vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude');
}

/** Where `readerd.path` is set: its workspace and folder values (see daemon/settingScope.ts). */
export function inspectPath(): { workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined {
  return vscode.workspace.getConfiguration(SECTION).inspect('path');
}

/** Writes `readerd.path` at `target` (Global: in a remote window, the remote machine's settings). */
export async function writePath(value: string, target: vscode.ConfigurationTarget): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('path', value, target);
}
