// The words and the page of a `readImages` answer: the model's answer, the pictures sent, and
// every file that could not be read with its code. Plain Node: no vscode import.

import { FileInfo, ReadImagesResult, SentImage } from '../protocol';
import { formatBytes } from '../format';

/** What the vision command shows: an answer, or the endpoint's error with the files' story. */
export interface VisionOutcome {
  query: string;
  /** Absent when the call failed. */
  result?: ReadImagesResult;
  /** The daemon's error message when the call failed (the key already `[redacted]` by it). */
  error?: string;
  /** The files as the daemon reports them (also in an error's data). */
  files: FileInfo[];
  images: SentImage[];
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One line per file that failed: `gone.png: FILE_NOT_FOUND: no such file`. */
export function failedFiles(files: FileInfo[]): string[] {
  return files.filter((f) => f.code !== undefined).map((f) => `${f.path}: ${f.code}${f.error ? `: ${f.error}` : ''}`);
}

/** The answer as Markdown text (what the command's document and the log show). */
export function visionMarkdown(outcome: VisionOutcome): string {
  const lines = [`**Question:** ${outcome.query}`, ''];
  if (outcome.result) {
    lines.push(`**Answer** (${outcome.result.provider}, ${outcome.result.model ?? 'model not named'}):`, '', outcome.result.answer, '');
  } else {
    lines.push(`**Failed:** ${outcome.error ?? 'no answer'}`, '');
  }
  if (outcome.images.length) {
    lines.push('**Pictures sent:**', ...outcome.images.map((i) => `- ${i.path}${i.page !== undefined ? ` page ${i.page}` : ''}: ${i.width}×${i.height} ${i.mediaType}${i.detail ? `, detail ${i.detail}` : ''}`), '');
  }
  const failed = failedFiles(outcome.files);
  if (failed.length) {
    lines.push('**Files not sent:**', ...failed.map((f) => `- ${f}`), '');
  }
  return lines.join('\n');
}

/** The webview page: question, answer (or error), pictures sent, files not sent. No script. */
export function visionHtml(outcome: VisionOutcome, cspSource: string): string {
  const answer = outcome.result
    ? `<h2>Answer</h2><div class="meta">${escapeHtml(outcome.result.provider)}, ${escapeHtml(outcome.result.model ?? 'model not named')}` +
      `${outcome.result.usage.inputTokens !== undefined ? `, ${outcome.result.usage.inputTokens} tokens in` : ''}` +
      `${outcome.result.usage.outputTokens !== undefined ? `, ${outcome.result.usage.outputTokens} out` : ''}</div>` +
      `<div class="answer">${escapeHtml(outcome.result.answer)}</div>`
    : `<h2>No answer</h2><div class="error">${escapeHtml(outcome.error ?? 'the call failed')}</div>`;
  const images = outcome.images.map((i) =>
    `<li>${escapeHtml(i.path)}${i.page !== undefined ? ` page ${i.page}` : ''}: ${i.width} × ${i.height} px ${escapeHtml(i.mediaType)}` +
    `${i.detail ? `, detail ${escapeHtml(i.detail)}` : ''}, ${formatBytes(i.bytes)}</li>`).join('');
  const failed = outcome.files.filter((f) => f.code !== undefined).map((f) =>
    `<li class="failed"><code>${escapeHtml(f.path)}</code>: <b>${escapeHtml(f.code!)}</b>${f.error ? ` ${escapeHtml(f.error)}` : ''}</li>`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline';">
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
.answer { white-space: pre-wrap; font-size: 1.1em; padding: .6em; border-left: 3px solid var(--vscode-textLink-foreground); }
.meta { color: var(--vscode-descriptionForeground); margin-bottom: .4em; }
.error, .failed b { color: var(--vscode-errorForeground); }
</style></head><body>
<h2>Question</h2><div class="answer">${escapeHtml(outcome.query)}</div>
${answer}
${images ? `<h2>Pictures sent</h2><ul>${images}</ul>` : ''}
${failed ? `<h2>Files not sent</h2><ul>${failed}</ul>` : ''}
</body></html>`;
}
