// What a person sees when readerd cannot be started: one notification that says what to install
// (the .deb, or a build in the repository) with "Locate readerd..." (a file picker that accepts
// only a program answering `readerd X.Y.Z` to `--version`, and writes `readerd.path` where this
// window reads it) and "Open Settings" (on the tab where the setting lives: Remote in a remote
// window).

import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkReaderdBinary, INSTALL_LINE } from './binaryCheck';
import { inspectPath, SECTION, writePath } from '../config';
import { placeWords, settingPlace, settingsCommand } from './settingScope';

export const LOCATE = 'Locate readerd...';
export const OPEN_SETTINGS = 'Open Settings';
export const SHOW_LOG = 'Show Log';

/** The message when no readerd is anywhere it is looked for. */
export function notFoundMessage(): string {
  return `readerd: the readerd program was not found (not in "readerd.path", on PATH, at /usr/bin/readerd, nor built in the repository). ` +
    `Install the package with \`${INSTALL_LINE}\`, or build it (meson setup build && ninja -C build), then try again; or locate it.`;
}

/** Opens the Settings editor on `readerd.path`, in the tab where it is (or would be) written. */
export async function openPathSettings(): Promise<void> {
  const place = settingPlace(inspectPath());
  const { command, args } = settingsCommand(`${SECTION}.path`, place, vscode.env.remoteName);
  await vscode.commands.executeCommand(command, ...args);
}

/**
 * Asks for the readerd program with a file picker, checks it with `--version`, and writes
 * `readerd.path` where it applies. Returns the path written, or undefined (cancelled, or refused:
 * then an error says why and offers to pick again).
 */
export async function locateReaderd(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: 'Locate the readerd program',
    openLabel: 'Use as readerd',
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
    defaultUri: vscode.Uri.file('/usr/bin'),
  });
  const file = picked?.[0]?.fsPath;
  if (!file) {
    return undefined;
  }
  const check = await checkReaderdBinary(file);
  if (!check.ok) {
    log.error(`locate: ${check.reason}`);
    const again = await vscode.window.showErrorMessage(`readerd: not used: ${check.reason}.`, LOCATE);
    return again ? locateReaderd(log) : undefined;
  }
  const place = settingPlace(inspectPath());
  const target = place === 'workspaceFolder' ? vscode.ConfigurationTarget.WorkspaceFolder
    : place === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await writePath(file, target);
  const where = placeWords(place, vscode.env.remoteName);
  log.info(`readerd.path set to ${file} (readerd ${check.version}) in ${where}`);
  void vscode.window.showInformationMessage(`readerd: using ${path.basename(file)} ${check.version} at ${file} (saved in ${where}).`);
  return file;
}

/** Shows a start failure with its buttons; "Locate readerd..." and "Open Settings" do their job. */
export async function showStartProblem(message: string, log: vscode.LogOutputChannel, buttons: string[] = [LOCATE, OPEN_SETTINGS, SHOW_LOG]): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, ...buttons);
  if (choice === LOCATE) {
    await locateReaderd(log);
  } else if (choice === OPEN_SETTINGS) {
    await openPathSettings();
  } else if (choice === SHOW_LOG) {
    log.show();
  }
}
