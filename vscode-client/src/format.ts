// Numbers as the extension writes them for people. Plain Node: no vscode import.

/** "48.2 KB" */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) {
    return '?';
  }
  if (n < 1024) {
    return `${n} B`;
  }
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
