// Numbers as the extension writes them for people, and when a number of tokens needs a yes
// before it is read or copied. Plain Node: no vscode import.

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

/** `12,345`. */
export function formatCount(n: number): string {
  // As toLocaleString('en-US') writes an integer, without its cost (a card of each of 2,000 files has a few).
  return Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en-US');
}

/** Whether a read of `tokens` estimated tokens needs a yes first, with `readerd.confirmAboveTokens` at `limit`. */
export function needsConfirmation(tokens: number, limit: number): boolean {
  return limit > 0 && tokens > limit;
}
