// Where `readerd.path` is written and shown. It is machine-overridable: in a remote window
// (Remote-SSH, code-server, a container) VS Code writes the user target of such a setting to the
// remote machine's settings, which the Settings editor shows in its Remote tab; a value in the
// workspace's (or folder's) settings overrides both, so it is changed where it is. Plain Node: no
// vscode import.

/** What `WorkspaceConfiguration.inspect` tells of a setting (the parts used here). */
export interface InspectedSetting {
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type SettingPlace = 'workspaceFolder' | 'workspace' | 'user';

/** The target to write: the most specific level that already sets it, else the user's (remote) settings. */
export function settingPlace(inspected: InspectedSetting | undefined): SettingPlace {
  if (inspected?.workspaceFolderValue !== undefined) {
    return 'workspaceFolder';
  }
  if (inspected?.workspaceValue !== undefined) {
    return 'workspace';
  }
  return 'user';
}

/**
 * The command (and its argument) that opens the Settings editor on `key` in the tab where it is
 * written: the workspace tab when the workspace sets it, the Remote tab in a remote window
 * (`remoteName` set), else the User tab.
 */
export function settingsCommand(key: string, place: SettingPlace, remoteName: string | undefined): { command: string; args: unknown[] } {
  if (place === 'workspace' || place === 'workspaceFolder') {
    return { command: 'workbench.action.openWorkspaceSettings', args: [{ query: key }] };
  }
  if (remoteName) {
    return { command: 'workbench.action.openRemoteSettings', args: [{ query: key }] };
  }
  return { command: 'workbench.action.openSettings', args: [key] };
}

/** How a place is named to a person. */
export function placeWords(place: SettingPlace, remoteName: string | undefined): string {
  if (place === 'workspaceFolder') {
    return 'the folder settings';
  }
  if (place === 'workspace') {
    return 'the workspace settings';
  }
  return remoteName ? `the remote settings (${remoteName})` : 'the user settings';
}
