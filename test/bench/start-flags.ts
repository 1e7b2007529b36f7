import fs from 'node:fs';
import path from 'node:path';

/**
 * The node flags of a checkout's `npm start` (`node FLAGS --import tsx src/main.ts` in its
 * package.json), so that the bench starts the product exactly as npm start does, also a checkout
 * of an older commit (whose `tsx src/main.ts` has none). V8 takes heap sizes only at start.
 */
export function startFlags(checkout: string): string[] {
  const start: string = JSON.parse(fs.readFileSync(path.join(checkout, 'package.json'), 'utf8')).scripts.start;
  const words = start.trim().split(/\s+/);
  return words[0] === 'node' ? words.slice(1, words.indexOf('--import')) : [];
}
