// One way to word what the extension tells a person: every message begins with "readerd: " once,
// whatever the error it carries already says. Plain Node: no vscode import.

/** `message` with exactly one "readerd: " in front. */
export function branded(message: string): string {
  return `readerd: ${message.replace(/^(readerd:\s*)+/i, '')}`;
}

/** The words of an error, branded once. */
export function errorText(error: unknown): string {
  return branded(error instanceof Error ? error.message : String(error));
}
