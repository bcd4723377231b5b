// The status bar item: the daemon's state as an icon, its version, pid, target, restarts and last
// error in the tooltip; a click shows the log.

import * as vscode from 'vscode';
import { DaemonInfo } from './manager';

const STATE_ICONS: Record<DaemonInfo['state'], string> = {
  stopped: '$(circle-slash)',
  starting: '$(sync~spin)',
  running: '$(files)',
  restarting: '$(sync~spin)',
  failed: '$(error)',
};

export class DaemonStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  /** Creates the item showing `info`. */
  constructor(info: DaemonInfo) {
    this.item = vscode.window.createStatusBarItem('readerd.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'readerd';
    this.item.command = 'readerd.showLog';
    this.show(info);
    this.item.show();
  }

  /** Shows the daemon's state now. */
  show(info: DaemonInfo): void {
    this.item.text = `${STATE_ICONS[info.state]} readerd`;
    const lines = [
      `readerd: ${info.state}`,
      info.serverInfo ? `version ${info.serverInfo.version}` : undefined,
      info.pid !== undefined ? `pid ${info.pid}` : undefined,
      info.target !== 'none' ? info.target : undefined,
      info.restarts ? `restarted ${info.restarts} time${info.restarts === 1 ? '' : 's'}` : undefined,
      info.lastError ? `last error: ${info.lastError}` : undefined,
      'Click to show the log',
    ];
    this.item.tooltip = lines.filter((l) => l !== undefined).join('\n');
    this.item.backgroundColor = info.state === 'failed'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
