// Prints "<tokens>\t<path>" for each file named on the command line (or one per line on
// stdin): its o200k_base token count by the real BPE (gpt-tokenizer), read as UTF-8.
// tests/test-tokens.c compares formatters/tokens.c's estimate with these counts.
import { readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const paths = process.argv.length > 2
  ? process.argv.slice(2)
  : readFileSync(0, 'utf8').split('\n').filter((p) => p !== '');
const out = [];
for (const p of paths) {
  const text = readFileSync(p, 'utf8');
  // Special-token strings in a file are ordinary text here, as in a model's input.
  out.push(`${countTokens(text, { disallowedSpecial: new Set() })}\t${p}`);
}
process.stdout.write(out.join('\n') + '\n');
