import { readFileSync } from 'node:fs';
import { encode, decode } from 'gpt-tokenizer/encoding/o200k_base';
const text = readFileSync(process.argv[2], 'utf8');
const lines = text.split(/(?<=\n)/);
for (const l of lines) { const t = encode(l, { disallowedSpecial: new Set() }); console.log(t.length + '\t' + JSON.stringify(l) + '\t' + t.map(x => decode([x])).join('|').replace(/\n/g,'⏎').replace(/\t/g,'⇥')); }
