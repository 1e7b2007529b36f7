import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRODUCT_NODE_FLAGS, childNodeFlags } from '../../src/platform/processes/node-flags';

const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')).scripts;

describe("the product's node flags", () => {
  it.each(['start', 'api', 'workers'])('npm run %s starts node with them (V8 takes heap sizes only at start)', (name) => {
    const words = scripts[name].split(/\s+/);
    expect(words[0]).toBe('node');
    expect(words.slice(1, words.indexOf('--import'))).toEqual([...PRODUCT_NODE_FLAGS]);
  });

  it('a forked process gets them, and the profiling flags of its parent', () => {
    expect(childNodeFlags([])).toEqual([...PRODUCT_NODE_FLAGS]);
    expect(childNodeFlags(['--cpu-prof', '--cpu-prof-dir=/tmp/p', '--import', 'tsx'])).toEqual(['--cpu-prof', '--cpu-prof-dir=/tmp/p', ...PRODUCT_NODE_FLAGS]);
  });

  it('a parent started with its own young-generation size passes that size on instead', () => {
    expect(childNodeFlags(['--max-semi-space-size=16'])).toEqual(['--max-semi-space-size=16']);
  });
});
