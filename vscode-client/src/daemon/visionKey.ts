// The vision API key: "readerd: Set Vision API Key" keeps it in VS Code's SecretStorage; the
// daemon gets it in `initialize` with the endpoint the settings give (never in a setting, a call
// or a log).

import * as vscode from 'vscode';
import { Settings } from '../config';
import { VisionSettings } from '../protocol';

/** The key's name in SecretStorage. */
export const VISION_SECRET = 'readerd.vision.apiKey';

export class VisionKey {
  private key: string | undefined;
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Fires when the key changes in SecretStorage (set, removed, or from another window). */
  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === VISION_SECRET) {
        listener();
      }
    });
  }

  /** Resolves once the key has been read, the first time from SecretStorage. */
  ready(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  /** Reads the key again (it changed in SecretStorage). */
  reload(): Promise<void> {
    this.loaded = this.load();
    return this.loaded;
  }

  private async load(): Promise<void> {
    try {
      this.key = (await this.secrets.get(VISION_SECRET)) || undefined;
    } catch (error) {
      this.key = undefined;
      this.log.warn(`the vision API key could not be read from the secret storage: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The connection's vision endpoint: the settings, and the key as last read; undefined when nothing is set. */
  endpoint(s: Settings): VisionSettings | undefined {
    const out: VisionSettings = {};
    if (s['vision.baseUrl'].trim()) {
      out.baseUrl = s['vision.baseUrl'].trim();
    }
    if (s['vision.model'].trim()) {
      out.model = s['vision.model'].trim();
    }
    if (s['vision.provider']) {
      out.provider = s['vision.provider'];
    }
    if (this.key) {
      out.apiKey = this.key;
    }
    return Object.keys(out).length ? out : undefined;
  }
}

/**
 * "readerd: Set Vision API Key": asks for it (a password box) or takes it as the argument; empty
 * removes it. `changed` hands the new key to the daemon before the command returns.
 */
export async function setVisionKeyCommand(secrets: vscode.SecretStorage, changed: () => Promise<void>, given?: unknown): Promise<boolean> {
  const key = typeof given === 'string' ? given : await vscode.window.showInputBox({
    title: 'readerd: Vision API Key',
    prompt: 'Sent only to readerd.vision.baseUrl (Authorization: Bearer, or x-api-key for anthropic). Empty removes the stored key.',
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) {
    return false;
  }
  if (key.trim() === '') {
    await secrets.delete(VISION_SECRET);
    void vscode.window.showInformationMessage('readerd: the vision API key was removed.');
  } else {
    await secrets.store(VISION_SECRET, key.trim());
    void vscode.window.showInformationMessage('readerd: the vision API key is stored in VS Code\'s secret storage.');
  }
  await changed();
  return true;
}
